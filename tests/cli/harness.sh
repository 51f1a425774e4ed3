# Sourced by the CLI test scripts: a scratch directory, removed on exit and made the current one;
# the counts of passed and failed checks with ok NAME and fail NAME; finish SCRIPT prints the
# summary line and gives the script's status.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
passes=0
ok() { echo "ok   $1"; passes=$((passes + 1)); }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
finish() {
  echo "$1: $passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
