//! Recordings used again: [`diff`] compares two message by message ([`align`] does it
//! on two streams, in a bounded window), [`script`] reads a recording's client side,
//! and [`against`] sends it to a live server (recording what comes back); [`mock`]
//! reads the server side and [`serve`] plays it to a live client, so a session
//! recorded once is a regression test for every later build of a server.

pub mod against;
pub mod align;
pub mod diff;
pub mod mock;
pub mod script;
pub mod serve;
