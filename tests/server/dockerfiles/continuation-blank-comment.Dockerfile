ARG BASE
FROM ${BASE}
ENV A=1 \

    B=2 \
  # a comment inside
    C=3
LABEL x=y
