#!/bin/sh
# The Debian package (scripts/build-deb.sh, scripts/debian/): it builds
# from the source tree, lintian finds no error in it, and the files it
# holds work where they are unpacked, without installing: the demo of the
# README finds parse_record regressed, the manual page renders, the
# completions are the program's own and the CI helpers are there and
# executable. About 30 s on two cores, most of it the package's build.
. "$(dirname "$0")/lib.sh"
command -v dpkg-buildpackage >/dev/null ||
	{ echo "dpkg-buildpackage not installed (dpkg-dev): skipped"; exit 77; }
dpkg-checkbuilddeps "$PD_ROOT/scripts/debian/control" 2>"$T/deps" ||
	{ echo "build dependencies missing: $(cat "$T/deps"): skipped"; exit 77; }
expect_exit 0 "$PD_ROOT/scripts/build-deb.sh" "$T/deb"
deb=$(ls "$T"/deb/perfdiff_*.deb 2>/dev/null | head -n 1)
[ -f "$deb" ] || { not_ok "no perfdiff_*.deb: $(tail -n 20 "$T/out" "$T/err")"; finish; }
ok
if command -v lintian >/dev/null; then
	expect_exit 0 lintian --fail-on error "$deb"
else
	echo "lintian not installed: not checked"
fi
R=$T/root
expect_exit 0 dpkg-deb -x "$deb" "$R"
expect_exit 1 "$R/usr/bin/perfdiff" "$PD_ROOT/fixtures/demo/base.perf.txt.gz" \
	"$PD_ROOT/fixtures/demo/cand.perf.txt.gz"
expect_grep "^regressed: parse_record" "$T/out"
if command -v man >/dev/null; then
	expect_exit 0 man -l "$R/usr/share/man/man1/perfdiff.1.gz"
	expect_grep "perfdiff compare" "$T/out"
else
	expect_exit 0 gzip -t "$R/usr/share/man/man1/perfdiff.1.gz"
fi
# completions: what the unpacked program writes for each shell
for f in bash:bash-completion/completions/perfdiff \
	zsh:zsh/vendor-completions/_perfdiff \
	fish:fish/vendor_completions.d/perfdiff.fish; do
	"$R/usr/bin/perfdiff" completion "${f%%:*}" >"$T/want" 2>&1
	if cmp -s "$T/want" "$R/usr/share/${f#*:}"; then ok; else
		not_ok "${f#*:} is not perfdiff completion ${f%%:*}"
	fi
done
for s in nightly.sh bisect-perf.sh record-ab.sh; do
	[ -x "$R/usr/share/perfdiff/scripts/$s" ] && ok || not_ok "no executable $s"
done
finish
