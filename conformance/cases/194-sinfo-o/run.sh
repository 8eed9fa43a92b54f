#!/usr/bin/env bash
. "$CASE_LIB"
sinfo -o "%P %a %l %D %t %N"; sinfo -o '%20P %.5a %c %m %G %f %z %T %E %H %u'
