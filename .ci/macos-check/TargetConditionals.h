/* The one macOS SDK header that ring's C sources include, for `cargo check`/`cargo clippy --target
 * x86_64-apple-darwin` on Linux (.ci/run): nothing is linked, so only the macros ring reads are needed. */
#ifndef HOOKS_TARGET_CONDITIONALS_H
#define HOOKS_TARGET_CONDITIONALS_H
#define TARGET_OS_MAC 1
#define TARGET_OS_OSX 1
#define TARGET_OS_IPHONE 0
#endif
