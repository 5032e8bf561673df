#pragma once
// The World a game uses: the store (store/world.h) with its loops (each, parallelEach:
// query/each.h) and what runs them (exec/). Code that only reads or writes the store without
// looping includes <lockstep/store/world.h>; code that names World only, <lockstep/fwd.h>.
#include <lockstep/exec/concurrent_stage.h>
#include <lockstep/exec/thread_pool.h>
#include <lockstep/query/each.h>
#include <lockstep/store/world.h>
