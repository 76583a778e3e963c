#!/usr/bin/env bash
# The project works from a copy of itself with nothing beside it: the files a clone
# would hold (git's tracked and not-ignored ones) are copied into an empty temporary
# directory, and there `make report` renders the recorded fixture run
# (framework/report/testdata/artifacts), the report command's -rerun-failed reads it,
# and the catalogue's tests (spec labels against statements, quotes against pages)
# pass. A path that reaches outside the repository (such as a catalogue read from a
# folder beside the clone) fails here. Run by `make test`; needs no Docker.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
copy="$root/clone"
mkdir "$copy"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"
  done | tar --null -T - -cf - | tar -xf - -C "$copy"
else
  tar --exclude=./_artifacts -cf - . | tar -xf - -C "$copy"
fi
echo "copied the project to $copy (its parent holds: $(find "$root" -mindepth 1 -maxdepth 1 -printf '%f '))"

fixture=framework/report/testdata/artifacts
cd "$copy"
log="$root/make-report.log"
make --no-print-directory report ARTIFACTS="$fixture" >"$log" 2>&1 || {
  echo "FAIL make report in a copy of the project:"; sed 's/^/     /' "$log"; exit 1
}
for f in report.html report.md; do
  [ -s "$fixture/$f" ] || { echo "FAIL make report wrote no $fixture/$f"; exit 1; }
done
# The matrix names the catalogue's statements with their citations: a statement row
# and a link to its page, both from the built-in catalogue.
grep -q 'id="PL-1"' "$fixture/report.html" || { echo "FAIL report.html has no row for PL-1"; exit 1; }
grep -q 'href="https://kubernetes.io/' "$fixture/report.html" || { echo "FAIL report.html cites no page"; exit 1; }
echo "ok   make report in a copy: $(grep -m1 '^statements:' "$log")"

rerun=$(go run ./cmd/podlifecycle report -artifacts "$fixture" -rerun-failed)
echo "ok   report -rerun-failed in a copy: ${rerun:-nothing failed}" | head -3

go test -vet=off -count=1 ./framework/statements/ >/dev/null || {
  echo "FAIL the catalogue's tests in a copy"; go test -vet=off -count=1 ./framework/statements/; exit 1
}
echo "ok   catalogue tests in a copy"
