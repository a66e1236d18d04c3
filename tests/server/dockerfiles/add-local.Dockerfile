ARG BASE
FROM ${BASE}
ADD bot.toml /x
