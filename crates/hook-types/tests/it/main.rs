//! hook-types' integration tests, one binary: a module per subject (`cargo test -p hook-types --test it`).

mod vocabulary;
