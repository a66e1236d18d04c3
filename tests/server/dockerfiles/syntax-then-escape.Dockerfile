# syntax=docker/dockerfile:1
# escape=`
ARG BASE
FROM ${BASE}
WORKDIR /tmp/x`
LABEL b=2
