//! Run one subprocess safely: argv or shell, stdin payload, bounded capture, one deadline, process-group kill.
//!
//! Knows nothing about hooks, events or effects.
