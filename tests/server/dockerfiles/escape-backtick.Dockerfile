# escape=`
ARG BASE
FROM ${BASE}
ENV A=1 `
    B=c:\path
WORKDIR /work\dir
