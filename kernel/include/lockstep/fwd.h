#pragma once
// Forward declarations of the kernel's types, for headers that only pass them by reference or
// pointer (a header that includes this instead of <lockstep/world.h> is not rebuilt when the
// store's layout changes).
#include <cstdint>

namespace lockstep {

class World;
struct WorldConfig;
struct Entity;
class Status;
enum class ErrorCode : std::uint8_t;
class Snapshot;
class StorageView;
class CommandBuffer;
struct AccessSet;
class EventSink;
struct Event;
struct TypeDescriptor;
class Executor;
class ThreadPool;
class ConcurrentStage;
class Lane;
class fixed;
struct Read;
struct Write;

}  // namespace lockstep
