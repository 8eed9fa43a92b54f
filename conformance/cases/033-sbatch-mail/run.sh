#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --mail-type=END,FAIL --mail-user=someone@example.org --wrap true)
fields "$id" MailUser MailType
