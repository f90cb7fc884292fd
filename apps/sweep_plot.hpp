#pragma once
// `pfmc bench --plot`: the chart is drawn by bench/plot_sweep.py (matplotlib) from the CSV that
// `pfmc bench --csv` writes; this finds the script and a Python that can run it.

#include <optional>
#include <string>

namespace pfmc::apps {

/// The Pythons tried for the plot, in order, for messages.
inline constexpr const char* kPlotPythons = "$PFMC_PYTHON, python3, /usr/bin/python3";

/// How to get a Python that can draw the plot, for messages.
inline constexpr const char* kPlotInstallHint =
    "sudo apt-get install python3-matplotlib, or set PFMC_PYTHON to a Python that has matplotlib";

/// The first of $PFMC_PYTHON (when set), `python3` (on PATH) and /usr/bin/python3 that can
/// import matplotlib; nullopt when none can.
std::optional<std::string> find_plot_python();

/// Draws the chart of a sweep into `png_path` by running bench/plot_sweep.py with `python`, on
/// the CSV at `csv_path`, or, when that is empty, on `csv_text` written to a temporary file that
/// is removed afterwards; the script draws into a temporary PNG whose bytes reach `png_path`
/// through base::write_file_atomically (links followed, FIFOs and devices written in place).
/// The script is the one in the source tree pfmc was built from, else the
/// copy installed with pfmc. Throws pfmc::RuntimeError when the script is not found, cannot be
/// started or fails (it prints its own reason on stderr).
void draw_sweep_plot(const std::string& python, const std::string& png_path,
                     const std::string& csv_path, const std::string& csv_text);

/// The same with bench/`script_name` (its one argument the data file, then --output PNG) on the
/// data at `data_path`, or on `data_text` in a temporary file ending `suffix`.
void draw_plot(const std::string& python, const std::string& script_name,
               const std::string& png_path, const std::string& data_path,
               const std::string& data_text, const std::string& suffix);

} // namespace pfmc::apps
