// What `pfmc bench` prints of a sweep (apps/sweep_report.hpp), on made-up measurements: the
// fraction of the ideal per configuration, the ideal's summary line, the speedup-by-distance table
// (the prefetching post's figures), and the CSV's ideal_fraction column.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "apps/sweep_report.hpp"

namespace pfmc {
namespace {

engine::Measurement measured(const std::string& backend, int distance, double ms,
                             config::Padding::Mode padding = config::Padding::Mode::automatic) {
  engine::Measurement m;
  m.choice = {backend, distance, config::Padding{padding, 0}};
  m.median_ms = m.min_ms = m.max_ms = ms;
  return m;
}

struct Sweep {
  engine::GroupPlan group;
  apps::GroupSweep sweep;
};

/// none 4 ms, scalar_batched 2 / 1.6 ms at d4 / d8, smem_rolling_async 2.5 (auto) and 3.2 (none)
/// at d4, the ideal 1 ms at d4 (its fastest distance) and 4.4 ms at d8; ordered fastest first as
/// the tuner leaves them.
Sweep made_up_sweep(bool with_ideal) {
  Sweep s;
  s.group.model_name = "m";
  s.group.times = {0.0, 0.5, 1.0};
  auto& r = s.sweep.result;
  if (with_ideal)
    r.all.push_back(measured("ideal", 4, 1.0));
  r.all.push_back(measured("scalar_batched", 8, 1.6));
  r.all.push_back(measured("scalar_batched", 4, 2.0));
  r.all.push_back(measured("smem_rolling_async", 4, 2.5));
  r.all.push_back(measured("smem_rolling_async", 4, 3.2, config::Padding::Mode::none));
  r.all.push_back(measured("none", 0, 4.0));
  if (with_ideal)
    r.all.push_back(measured("ideal", 8, 4.4));
  r.baseline = r.all[with_ideal ? r.all.size() - 2 : r.all.size() - 1];
  r.best = r.all[with_ideal ? 1 : 0];
  if (with_ideal)
    r.ideal = r.all.front();
  s.sweep.group = &s.group;
  return s;
}

std::string line_of(const std::string& text, const std::string& start) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(start, 0) == 0)
      return line;
  }
  return "(no line starting '" + start + "')";
}

/// The last space-separated field of a line (the table's % ideal column).
std::string last_column(const std::string& line) {
  return line.substr(line.rfind(' ') + 1);
}

TEST(SweepReport, EveryConfigurationAsAFractionOfTheIdeal) {
  const Sweep s = made_up_sweep(true);
  const std::string table = apps::sweep_table(s.sweep, 0.0);
  EXPECT_NE(table.find("% ideal"), std::string::npos) << table;
  // scalar_batched d8: 1 / 1.6 = 62.5% of the ideal; none: 25%; the ideal itself 100%.
  EXPECT_EQ(last_column(line_of(table, "  scalar_batched d8 ")), "62.5") << table;
  EXPECT_EQ(last_column(line_of(table, "  none ")), "25.0") << table;
  EXPECT_EQ(last_column(line_of(table, "  ideal d4 ")), "100.0") << table;
  EXPECT_EQ(last_column(line_of(table, "  ideal d8 ")), "22.7") << table;
  EXPECT_EQ(line_of(table, "  ideal (free draws)"),
            "  ideal (free draws): 1.0000 ms; the fastest kernel, scalar_batched d8, is 62.5% of "
            "it; none 25.0%");
}

TEST(SweepReport, SpeedupByDistanceTableHasOneRowPerBackendAndPadding) {
  const Sweep s = made_up_sweep(true);
  const std::string table = apps::sweep_table(s.sweep, 0.0);
  EXPECT_EQ(line_of(table, "  backend"), "  backend                              d4     d8");
  EXPECT_EQ(line_of(table, "  scalar_batched  "),
            "  scalar_batched                     2.00   2.50");
  EXPECT_EQ(line_of(table, "  smem_rolling_async (auto)"),
            "  smem_rolling_async (auto)          1.60      -");
  EXPECT_EQ(line_of(table, "  smem_rolling_async (none)"),
            "  smem_rolling_async (none)          1.25      -");
  EXPECT_EQ(line_of(table, "  ideal  "), "  ideal                              4.00   0.91");
  // Catalogue order: scalar_batched, smem_rolling_async, ideal; none (no distance) has no row.
  const std::string rows = table.substr(table.find("by prefetch distance"));
  EXPECT_LT(rows.find("  scalar_batched  "), rows.find("  smem_rolling_async (auto)"));
  EXPECT_LT(rows.find("  smem_rolling_async (none)"), rows.find("  ideal  "));
  EXPECT_EQ(rows.find("  none "), std::string::npos) << rows;
}

TEST(SweepReport, WithoutAnIdealNoFractionIsInvented) {
  const Sweep s = made_up_sweep(false);
  const std::string table = apps::sweep_table(s.sweep, 0.0);
  EXPECT_EQ(table.find("ideal (free draws)"), std::string::npos) << table;
  // The last column, % ideal, is 0.
  EXPECT_EQ(last_column(line_of(table, "  scalar_batched d8 ")), "0.0") << table;
}

TEST(SweepReport, CsvCarriesTheIdealFraction) {
  const Sweep s = made_up_sweep(true);
  const std::string csv = apps::sweep_csv({s.sweep}, 0.0);
  EXPECT_NE(csv.rfind(",ideal_fraction\n", csv.find('\n')), std::string::npos) << csv;
  EXPECT_NE(csv.find("m,2,scalar_batched,8,auto,1.6,1.6,1.6,2.5,"), std::string::npos) << csv;
  EXPECT_EQ(line_of(csv, "m,2,scalar_batched,8,")
                .substr(line_of(csv, "m,2,scalar_batched,8,").rfind(',')),
            ",0.625");
}

} // namespace
} // namespace pfmc
