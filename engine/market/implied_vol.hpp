#pragma once
// Black's formula on a forward and its inverse, the implied volatility: how quotes held as vols
// become prices and back (engine/market/: quotes → checks → surfaces → models).
//
// Conventions: `forward` is F(0, T), `discount` the discount factor to T, `vol` the annual Black
// volatility; prices are present values. Inputs that make no sense throw std::invalid_argument
// naming the input, as engine/analytic/ does.

#include "engine/analytic/analytic.hpp"

namespace pfmc::market {

using analytic::OptionKind;

/// Black (1976): discount × (F N(d1) − K N(d2)) for a call, the put by parity.
double black_price(OptionKind kind, double forward, double strike, double T, double vol,
                   double discount);

/// dPrice/dvol of black_price (per unit of vol: 1.0 = 100 vol points); the same for a call and a
/// put.
double black_vega(double forward, double strike, double T, double vol, double discount);

/// The vol at which black_price equals `price`. Solved on the out-of-the-money option (the
/// in-the-money one by parity), by Newton's steps kept inside a shrinking bracket, to 1e-14 of
/// the price. std::invalid_argument when `price` lies outside the arbitrage bounds (at or below
/// the discounted intrinsic value, at or above the discounted forward or strike).
double implied_vol(OptionKind kind, double price, double forward, double strike, double T,
                   double discount);

} // namespace pfmc::market
