//! Recordings used again: [`diff`] compares two message by message, [`script`] reads
//! a recording's client side, and [`against`] sends it to a live server (recording
//! what comes back), so a session recorded once is a regression test for every later
//! build of a server.

pub mod against;
pub mod diff;
pub mod script;
