#pragma once
// Shared by `lockstep query` and `lockstep dump --where`: how a malformed query is reported
// (message with the 1-based column, the query, a caret under the column; exit 2).
#include <lockstep/inspect/query.h>

#include <string>

namespace lockstep::cli {

int report_query_error(bool json, const std::string& query, const inspect::QueryError& err);

}  // namespace lockstep::cli
