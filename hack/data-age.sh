#!/usr/bin/env bash
# Refuses (exit 1) when the embedded release facts were last checked more than MAX_DAYS ago
# (default 14): the release workflow runs it so that no binary ships stale facts. `talops
# catalog update` and the weekly catalog workflow keep the date current.
set -euo pipefail
cd "$(dirname "$0")/.."

max_days="${1:-14}"
file=internal/catalog/data/releases.json
checked=$(sed -n 's/^  "checked": "\([0-9-]*\)",$/\1/p' "$file")
[ -n "$checked" ] || { echo "no checked date in $file" >&2; exit 1; }

age_days=$(( ( $(date -u +%s) - $(date -u -d "$checked" +%s) ) / 86400 ))
if [ "$age_days" -gt "$max_days" ]; then
  echo "the release facts in $file were checked $checked, $age_days days ago (more than $max_days): run talops catalog update and review internal/catalog/data/releases.json" >&2
  exit 1
fi
echo "release facts checked $checked ($age_days days ago)"
