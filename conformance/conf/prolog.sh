#!/bin/sh
# The Prolog of `spur-conformance both --prolog` (PrologFlags=Alloc,Contain), the same file for both targets: it
# takes long enough that a job is seen waiting for it, and fails while /tmp/spur-conformance-prolog-fail exists
# (cases 405-409).
[ -e /tmp/spur-conformance-prolog-fail ] && exit 1
sleep 2
exit 0
