#!/bin/bash
echo "argc=$#"; for a in "$@"; do echo "[$a]"; done
