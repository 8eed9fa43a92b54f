#!/usr/bin/env bash
. "$CASE_LIB"
out=$(printf '#!/bin/bash\necho from stdin script\n' | sbatch -o stdin-%j.out); echo "$out"
id=${out##* }; track "$id"; wait_done "$id"
cat stdin-*.out; fields "$id" JobName Command
