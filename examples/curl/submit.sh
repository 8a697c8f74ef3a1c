#!/usr/bin/env bash
# Submits a manifest to a PhotoCluster coordinator over its HTTP API with curl, follows the job to
# its end (Server-Sent Events) and downloads one photo's output.
#
#   API=https://127.0.0.1:8080 TOKEN=$(cat alice.token) CA=cert.pem examples/curl/submit.sh job.json Horse horse.jpg
#
# job.json is the body of POST /v1/jobs: {"manifest": [{"name": …, "url": …}, …], "filters": ["sepia"], "out": "alice/demo"}.
# Needs curl and python3 (to read the JSON answers).
set -euo pipefail
body=$1 photo=$2 to=$3
: "${API:?set API to the address of the coordinator HTTP listener}" "${TOKEN:?set TOKEN to an API token}"
curl_api() { curl --silent --show-error --fail-with-body ${CA:+--cacert "$CA"} -H "Authorization: Bearer $TOKEN" "$@"; }

# 201 with {"id": …, "total": …}; a refusal is a problem (application/problem+json) naming what was wrong.
job=$(curl_api -X POST -H 'Content-Type: application/json' --data-binary "@$body" "$API/v1/jobs" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
echo "job $job"

# The events until `end` (curl -N prints them as they come); the end event's data is the job.
curl_api -N -H 'Accept: text/event-stream' "$API/v1/jobs/$job/events" | while IFS= read -r line; do
    case $line in
        "event: end") ended=1 ;;
        data:*) if [ "${ended:-}" = 1 ]; then
                    echo "${line#data: }" | python3 -c 'import json, sys; c = json.load(sys.stdin)["counts"]; print("%(succeeded)d ok, %(failed)d failed, %(cancelled)d cancelled of %(total)d" % c)'
                    break
                fi ;;
    esac
done

name=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$photo")
curl_api -o "$to" "$API/v1/jobs/$job/photos/$name/output"
echo "downloaded $photo to $to"
