#pragma once
// The change journal views are updated from (docs/query.md, "Views"). Not state in itself:
// a conservative superset of the entity slots whose view-relevant state may have changed
// since the last World::updateViews(), plus the components handed out column-wide (Write
// fetches of each()/queries) in that time. A trusted snapshot carries it along so that an
// update after a load still costs what the changes cost (views.cpp); results never depend
// on it being tight, only on it being a superset.
#include <lockstep/store/guard.h>

#include <cstdint>
#include <memory>

namespace lockstep::detail {

struct ViewJournal {
  explicit ViewJournal(std::uint32_t max_entities)
      : dirty(new std::uint8_t[max_entities == 0 ? 1 : max_entities]()),
        list(new std::uint32_t[max_entities == 0 ? 1 : max_entities]()) {}

  std::unique_ptr<std::uint8_t[]> dirty;  // per slot: listed in `list`
  std::unique_ptr<std::uint32_t[]> list;  // dirty slots in arrival order, each once
  std::uint32_t count = 0;
  IdSet256 columns;   // watched components handed out column-wide since the last update
  IdSet256 watched;   // union of the views' watched components (configuration)
  bool rescan = false;  // every slot is a candidate (clear(), a reset)

  void touch(std::uint32_t slot) noexcept {
    if (dirty[slot] != 0) return;
    dirty[slot] = 1;
    list[count++] = slot;  // count <= max_entities: each slot at most once
  }
  void touch_if_watched(std::uint32_t slot, std::uint32_t id) noexcept {
    if (watched.contains(id)) touch(slot);
  }
  void column(std::uint32_t id) noexcept {
    if (watched.contains(id)) columns.insert(id);
  }
};

}  // namespace lockstep::detail
