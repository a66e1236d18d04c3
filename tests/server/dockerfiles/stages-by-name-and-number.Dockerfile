ARG BASE
FROM ${BASE} AS one
WORKDIR /w
FROM scratch
COPY --from=0 /w /w
COPY --from=one /w /v
