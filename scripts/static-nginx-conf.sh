#!/usr/bin/env bash
# Usage: static-nginx-conf.sh DIR PORT ROOT ERROR_LOG [ACCESS_LOG]
# Prints the nginx configuration the benchmarks' baseline uses: nginx
# serving ROOT's files as JSON on 127.0.0.1:PORT, temp files and pid under
# DIR (bench.sh and bench-http.sh, so both baselines are the same server).
# ACCESS_LOG: a file for one line per request, as the services write their
# access line at LOG_LEVEL=info (bench.sh passes one then, so both sides of
# a comparison log alike); absent or "off": no access log.
set -euo pipefail
dir=${1:?usage: static-nginx-conf.sh DIR PORT ROOT ERROR_LOG}
port=${2:?usage: static-nginx-conf.sh DIR PORT ROOT ERROR_LOG}
root=${3:?usage: static-nginx-conf.sh DIR PORT ROOT ERROR_LOG}
log=${4:?usage: static-nginx-conf.sh DIR PORT ROOT ERROR_LOG}
access=${5:-off}
cat <<CONF
daemon off;
user root;
worker_processes 2;
pid $dir/nginx.pid;
error_log $log warn;
events { worker_connections 4096; }
http {
    access_log $access;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    server {
        listen 127.0.0.1:$port;
        root $root;
        location / { default_type application/json; }
    }
}
CONF
