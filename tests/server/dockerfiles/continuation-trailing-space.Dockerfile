ARG BASE
FROM ${BASE}
RUN echo a \   
  b \	
  c
