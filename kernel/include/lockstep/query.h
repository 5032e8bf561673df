#pragma once
// Split in 0.3.0 into <lockstep/query/tags.h> (Read, Write) and <lockstep/store/guard.h> (the
// iteration guard, GuardPolicy); this path forwards to both until 0.4.0 (CHANGELOG).
#include <lockstep/query/tags.h>
#include <lockstep/store/guard.h>
