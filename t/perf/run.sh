#!/bin/sh
# Runs every benchmark; exits non-zero when one misses its target.
cd "$(dirname "$0")" || exit 1
status=0
for script in p[0-9]*.sh; do
	echo "# $script"
	sh "./$script" || status=1
done
exit $status
