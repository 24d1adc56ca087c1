#!/bin/sh
# make install into a scratch DESTDIR: every file a package needs is
# there (daemons, the faro command, libfaro with its headers and faro.pc,
# man pages, units, tmpfiles.d and sysusers.d entries, the SELinux policy
# sources), the units name the installed binaries, and a program builds
# against the installed libfaro through pkg-config. Then make uninstall
# leaves no file behind.
set -u
b=${top_builddir:?}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make=${MAKE:-make}
# A fresh make, not a job of the one running the tests.
unset MAKEFLAGS MFLAGS MAKELEVEL
fail=0

if ! (cd "$b" && $make -s install DESTDIR="$dest" >"$dest.log" 2>&1); then
	echo "FAIL: make install"; cat "$dest.log"; rm -f "$dest.log"; exit 1
fi
rm -f "$dest.log"

# The configured directories, as make sees them.
var() { (cd "$b" && $make -s --no-print-directory print-var VAR="$1" \
	-f Makefile -f - <<'EOF'
print-var:
	@echo $($(VAR))
EOF
) }
prefix=$(var prefix)
bindir=$(var bindir); sbindir=$(var sbindir); libdir=$(var libdir)
includedir=$(var includedir); mandir=$(var mandir); datadir=$(var datadir)
unitdir=$(var systemdsystemunitdir); docdir=$(var docdir)

need() {
	for f in "$@"; do
		if [ ! -e "$dest$f" ]; then
			echo "FAIL: not installed: $f"; fail=1
		fi
	done
}
need_x() {
	for f in "$@"; do
		[ -x "$dest$f" ] || { echo "FAIL: not an executable: $f"; fail=1; }
	done
}

need_x "$sbindir/traced" "$sbindir/traced_probes" \
	"$bindir/trace_processor" "$bindir/faro"
need "$libdir/pkgconfig/faro.pc" "$mandir/man1/faro.1" \
	"$mandir/man8/traced.8" "$mandir/man8/traced_probes.8" \
	"$mandir/man1/trace_processor.1" \
	"$unitdir/traced.service" "$unitdir/traced_probes.service" \
	"$unitdir/trace_processor.service" "$unitdir/traced-producer.socket" \
	"$unitdir/traced-consumer.socket" \
	"$prefix/lib/tmpfiles.d/faro.conf" "$prefix/lib/sysusers.d/faro.conf" \
	"$datadir/selinux/devel/faro/faro.te" \
	"$datadir/selinux/devel/faro/faro.fc" \
	"$datadir/selinux/devel/faro/faro.if" \
	"$docdir/install.md" "$docdir/quickstart.md"
ls "$dest$libdir"/libfaro.so.* >/dev/null 2>&1 ||
	{ echo "FAIL: no shared libfaro in $libdir"; fail=1; }
ls "$dest$includedir"/faro/*.h >/dev/null 2>&1 ||
	ls "$dest$includedir"/faro*.h >/dev/null 2>&1 ||
	{ echo "FAIL: no libfaro headers in $includedir"; fail=1; }

# No test program, no convenience library, no build path escapes.
for f in $(cd "$dest" && find . -type f); do
	case "$f" in
	*/check_*|*.la|*/lib*.a)
		case "$f" in */libfaro.a|*/libfaro.la) ;;
		*) echo "FAIL: should not be installed: $f"; fail=1 ;; esac ;;
	esac
done
for u in traced traced_probes trace_processor; do
	if grep -q '@[a-z]*@' "$dest$unitdir/$u.service"; then
		echo "FAIL: $u.service keeps a placeholder"; fail=1
	fi
	exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$dest$unitdir/$u.service")
	[ -x "$dest$exe" ] || { echo "FAIL: $u.service runs $exe, not installed"; fail=1; }
done

# A client builds and links against what was installed, found by
# pkg-config the way a packager's build would.
if command -v pkg-config >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
	hdr=$(cd "$dest$includedir" && find . -name '*.h' | sed 's|^\./||' | sort | head -n 1)
	cat >"$dest/t.c" <<EOF
#include <$hdr>
int main(void) { return 0; }
EOF
	cflags=$(PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_PATH="$dest$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
		pkg-config --cflags faro) &&
	libs=$(PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_PATH="$dest$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
		pkg-config --libs faro) || { echo "FAIL: pkg-config faro"; fail=1; }
	if [ $fail -eq 0 ] && ! cc $cflags -o "$dest/t" "$dest/t.c" $libs 2>"$dest/cc.log"; then
		echo "FAIL: building against the installed libfaro:"; cat "$dest/cc.log"; fail=1
	fi
	rm -f "$dest/t" "$dest/t.c" "$dest/cc.log"
fi

# Uninstall takes everything back.
if ! (cd "$b" && $make -s uninstall DESTDIR="$dest" >/dev/null 2>&1); then
	echo "FAIL: make uninstall"; fail=1
fi
left=$(cd "$dest" && find . -type f | head -n 20)
if [ -n "$left" ]; then
	echo "FAIL: left after make uninstall:"; echo "$left"; fail=1
fi

[ $fail -eq 0 ] && echo "PASS: make install and uninstall in DESTDIR"
exit $fail
