ARG BASE
FROM ${BASE}
CMD ["python", "-c", "print(1)"]
ENTRYPOINT [ "a b" , "c" ]
COPY ["bot.toml", "/x y/"]
CMD [not json]
