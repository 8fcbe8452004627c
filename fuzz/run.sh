#!/bin/sh
# Runs one fuzz target for a while: fuzz/run.sh <config_file|output_parser|shell_command> [seconds, default 600]
#
# Installs cargo-fuzz from crates.io when it is missing. Only a stable toolchain is needed: RUSTC_BOOTSTRAP=1 lets
# cargo-fuzz pass its flags, and --sanitizer none builds without AddressSanitizer (safe Rust: the targets look for
# panics, hangs and broken invariants, not memory errors). The corpus grows in fuzz/corpus/<target>, seeded from
# the repository's fixture files; a crash is saved in fuzz/artifacts/<target>/ and must become a regression test.
set -eu
target=${1:?usage: fuzz/run.sh <config_file|output_parser|shell_command> [seconds]}
seconds=${2:-600}
cd "$(dirname "$0")"
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
mkdir -p "corpus/$target"
if [ "$target" = config_file ] && [ -z "$(ls -A corpus/config_file)" ]; then
  i=0
  for f in $(find ../tests/fixtures -type f \( -name '*.yaml' -o -name '*.json' -o -name '*.toml' \)); do
    i=$((i + 1))
    # The first byte picks the format the target reads the rest as (see fuzz_targets/config_file.rs).
    case $f in
      *settings.json) sel='\002' ;; *config.toml) sel='\004' ;; *.toml) sel='\007' ;; *.json) sel='\001' ;; *) sel='\000' ;;
    esac
    { printf "$sel"; cat "$f"; } > "corpus/config_file/seed$i"
  done
fi
if [ "$target" = shell_command ] && [ -z "$(ls -A corpus/shell_command)" ]; then
  # Seeded with the lines of hook-shell's table (one a file; `\n` in a line is a newline).
  i=0
  grep -v '^#' ../crates/hook-shell/tests/it/table.txt | cut -f1 | while IFS= read -r line; do
    i=$((i + 1))
    printf '%b' "$line" > "corpus/shell_command/seed$i"
  done
fi
RUSTC_BOOTSTRAP=1 exec cargo fuzz run -O --sanitizer none "$target" "corpus/$target" -- \
  -max_total_time="$seconds" -print_final_stats=1
