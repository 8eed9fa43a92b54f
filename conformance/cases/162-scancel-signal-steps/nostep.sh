#!/bin/bash
trap 'echo shell got USR1' USR1
touch ready2
while [[ ! -e release2 ]]; do sleep 0.1; done
echo done
