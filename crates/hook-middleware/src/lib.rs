//! The ordered hook pipeline: registrations, dispatch of one event, folds, the output protocol, receipts.
//!
//! Never parses files and never prints to a terminal.
