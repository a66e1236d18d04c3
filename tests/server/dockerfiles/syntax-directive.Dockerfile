# syntax=docker/dockerfile:1
ARG BASE
FROM ${BASE}
LABEL a=b
