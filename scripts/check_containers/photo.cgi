#!/bin/sh
# The photo server of scripts/check-containers (busybox httpd, CGI):
#   GET /cgi-bin/photo?file=NAME&delay=SECONDS[&...]
# answers the sample photo /srv/photos/NAME after SECONDS (default 0), or 404 when there is none.
# The check points its manifests' URLs here; the delay keeps photos in flight on the workers long
# enough to kill or stop a worker that holds some.
file=
delay=0
IFS='&'
for pair in $QUERY_STRING; do
    case $pair in
        file=*) file=${pair#file=} ;;
        delay=*) delay=${pair#delay=} ;;
    esac
done
case $file in */* | .*) file= ;; esac
case $delay in '' | *[!0-9.]*) delay=0 ;; esac
sleep "$delay"
if [ -n "$file" ] && [ -f "/srv/photos/$file" ]; then
    printf 'Content-Type: application/octet-stream\r\nContent-Length: %s\r\n\r\n' "$(wc -c <"/srv/photos/$file")"
    exec cat "/srv/photos/$file"
fi
printf 'Status: 404 Not Found\r\nContent-Type: text/plain\r\n\r\nno such photo\n'
