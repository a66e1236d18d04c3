# escape=`
ARG BASE
FROM ${BASE}
ENV A=1 `
 B=2
