#pragma once
// TargetScan's site types of a miRanda hit (docs/algorithms.md, "Site types"), from the microRNA's
// positions 1-8 (counted from its 5' end) and the target letters facing them in the hit's display
// lines: 8mer, 7mer-m8, 7mer-A1, 6mer, offset-6mer, or none.
#include <string>

namespace screen::miranda {

enum class SiteType { none, offset_6mer, six_mer, seven_mer_a1, seven_mer_m8, eight_mer };

// query_line: 3'->5' (its last letter is position 1), target_line: 5'->3', column for column, '-'
// for a gap or a target that ran out (miRanda's display lines, flanks included).
SiteType site_type(const std::string& query_line, const std::string& target_line);

// "8mer", "7mer-m8", "7mer-A1", "6mer", "offset-6mer", "none".
const char* site_type_name(SiteType t);

}  // namespace screen::miranda
