//! The `hook` binary: thin composition and rendering over the library crates.

fn main() {
    eprintln!("hook: the command-line interface is planned (see ARCHITECTURE.md)");
    std::process::exit(1);
}
