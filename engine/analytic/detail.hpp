#pragma once
// Building blocks shared by the analytic library's files; not part of its interface (include
// engine/analytic/analytic.hpp for that).

#include <string>

#include "engine/analytic/analytic.hpp"

namespace pfmc::analytic::detail {

inline constexpr double pi = 3.14159265358979323846;

// ---- argument checks (checks.cpp) ----------------------------------------------------------

/// Throws std::invalid_argument "pfmc::analytic::<function>: <message>".
[[noreturn]] void fail(const char* function, const std::string& message);
/// "name = value", the value to 17 digits.
std::string describe(const char* name, double value);
void require_positive(const char* function, const char* name, double value);
void require_non_negative(const char* function, const char* name, double value);
void require_finite(const char* function, const char* name, double value);
void require_correlation(const char* function, const char* name, double value);
/// The checks every Black-Scholes-style function needs.
void require_market(const char* function, double spot, double strike, double T, double r, double q,
                    double sigma);

// ---- Black-Scholes building blocks (black_scholes.cpp) -------------------------------------

/// +1 for a call, -1 for a put.
double sign_of(OptionKind kind);
/// The put for a call, the call for a put.
OptionKind other_kind(OptionKind kind);

/// Black (1976) on a forward: discount * E[(phi (X - K))^+] for lognormal X with mean `forward`
/// and log standard deviation `stddev`. stddev == 0 gives the discounted intrinsic value.
double black_forward(OptionKind kind, double forward, double strike, double stddev,
                     double discount);

/// black_scholes without the argument checks, for callers that have made them.
double black_scholes_unchecked(OptionKind kind, double spot, double strike, double T, double r,
                               double q, double sigma);

} // namespace pfmc::analytic::detail
