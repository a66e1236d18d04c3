# foo=bar
# escape=`
ARG BASE
FROM ${BASE}
WORKDIR /tmp/x`
LABEL b=2
