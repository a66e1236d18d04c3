"""Uploaded Dockerfiles are read by buildkit's own parser and held to an allow-list."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.sandbox.dockerfile import parse_dockerfile
from arena.server.dockerfile_policy import check_dockerfile
from arena.server.uploads import UploadError

from .archives import TINY_DOCKERFILE

HEAD = "ARG BASE\nFROM ${BASE}\n"

REFUSED = [
    ("other image", "FROM python:3.11-slim\n",
     "the Dockerfile's line 1: FROM 'python:3.11-slim' would fetch an image; build FROM "
     "${BASE} (the arena's base image), scratch or an earlier stage"),
    ("other variable", HEAD + "ARG IMAGE=alpine\nFROM ${IMAGE}\n",
     "the Dockerfile's line 4: FROM '${IMAGE}' names a variable; build FROM ${BASE}"),
    ("base with a default", HEAD + "FROM ${BASE:-alpine}\n",
     "the Dockerfile's line 3: FROM '${BASE:-alpine}' names a variable"),
    ("arg other than BASE first", "ARG IMAGE=alpine\nFROM ${IMAGE}\n",
     "the Dockerfile's line 1: only ARG BASE may come before the first FROM in uploads"),
    ("base not declared", "FROM ${BASE}\n",
     "the Dockerfile's line 1: FROM ${BASE} needs ARG BASE before the first FROM"),
    ("upper-case scratch", "FROM SCRATCH\n", "the Dockerfile's line 1: FROM 'SCRATCH' would "
                                             "fetch an image"),
    ("platform option", "ARG BASE\nFROM --platform=linux/arm64 ${BASE}\n",
     "the Dockerfile's line 2: FROM takes no options in uploads"),
    ("copy from an image", HEAD + "COPY --from=busybox:latest /bin/sh /sh\n",
     "the Dockerfile's line 3: COPY --from='busybox:latest' is not an earlier stage"),
    ("copy from an image id", HEAD + "COPY --from=sha256:" + "a" * 64 + " /x /x\n",
     "the Dockerfile's line 3: COPY --from='sha256:"),
    ("copy from a variable", HEAD + "ARG V=victim\nCOPY --from=${V} /x /x\n",
     "the Dockerfile's line 4: COPY --from='${V}' is not an earlier stage"),
    ("copy from the current stage", HEAD + "COPY --from=0 /a /b\n",
     "the Dockerfile's line 3: COPY --from='0' is not an earlier stage"),
    ("copy from a later stage", HEAD + "COPY --from=1 /a /b\nFROM scratch\n",
     "the Dockerfile's line 3: COPY --from='1' is not an earlier stage"),
    ("copy link", HEAD + "COPY --link a /a\n",
     "the Dockerfile's line 3: COPY takes only --from=<stage> and --chown=<user> in uploads, "
     "not '--link'"),
    ("copy chmod", HEAD + "COPY --chmod=777 a /a\n", "the Dockerfile's line 3: COPY takes only"),
    ("copy variable source", HEAD + "ARG S=/etc\nCOPY $S /a\n",
     "the Dockerfile's line 4: COPY source '$S' names a variable"),
    ("add a url", HEAD + "ADD https://example.com/x.tgz /x\n",
     "the Dockerfile's line 3: ADD is not allowed in uploads (it fetches URLs and unpacks "
     "archives); use COPY, and unpack archives in a RUN step"),
    ("add an escaped url", HEAD + "ADD http:\\/\\/127.0.0.1:9/x /x\n",
     "the Dockerfile's line 3: ADD is not allowed"),
    ("add a local file", HEAD + "ADD bot.tar.gz /bot/\n", "the Dockerfile's line 3: ADD is not "
                                                          "allowed"),
    ("add checksum", HEAD + "ADD --checksum=sha256:00 https://x/y /y\n",
     "the Dockerfile's line 3: ADD is not allowed"),
    ("onbuild", HEAD + "ONBUILD COPY --from=victim /a /a\n",
     "the Dockerfile's line 3: ONBUILD is not allowed in uploads"),
    ("volume", HEAD + "VOLUME /data\n", "the Dockerfile's line 3: VOLUME is not allowed"),
    ("shell", HEAD + 'SHELL ["/bin/bash", "-c"]\n', "the Dockerfile's line 3: SHELL is not "
                                                     "allowed"),
    ("healthcheck", HEAD + "HEALTHCHECK CMD true\n",
     "the Dockerfile's line 3: HEALTHCHECK is not allowed in uploads (allowed: FROM, RUN, COPY"),
    ("run mount", HEAD + "RUN --mount=type=bind,from=victim,target=/v cat /v/secret\n",
     "the Dockerfile's line 3: RUN takes no flags in uploads (--mount=type=bind"),
    ("run network", HEAD + "RUN --network=host true\n", "the Dockerfile's line 3: RUN takes no "
                                                         "flags"),
    ("heredoc", HEAD + "RUN <<EOF\necho hi\nEOF\n",
     "the Dockerfile's line 3: heredocs (<<EOF) are not allowed in uploads"),
    ("syntax directive", "# syntax=docker/dockerfile:1\n" + HEAD,
     "the Dockerfile's line 1: the 'syntax' parser directive is not allowed in uploads"),
    ("check directive", "# check=skip=all\n" + HEAD,
     "the Dockerfile's line 1: the 'check' parser directive is not allowed"),
    ("reserved label", HEAD + 'LABEL "cardarena.sandbox"=0\n',
     "the Dockerfile's line 3: the label '\"cardarena.sandbox\"' is reserved"),
    ("continued lines", HEAD + "RUN true\nCOPY \\\n  # a comment\n\n  --from=busybox \\\n  /a /b\n",
     "the Dockerfile's line 4: COPY --from='busybox' is not an earlier stage"),
    # An unknown directive ends the directives (as in buildkit), so the escape is still '\':
    # the COPY is an instruction of its own, not the end of the RUN line.
    ("escape after an unknown directive",
     "# foo=bar\n# escape=`\n" + HEAD + "RUN echo `\nCOPY --from=victim /s /s\n",
     "the Dockerfile's line 6: COPY --from='victim' is not an earlier stage"),
    ("form feed", HEAD + "COPY --from=victim\x0c /s /s\n",
     "the Dockerfile's line 3 holds the character U+000C; only printable characters, spaces and "
     "tabs are allowed in uploads"),
    ("line separator", HEAD + "COPY a\u2028 /s\n", "the Dockerfile's line 3 holds the character "
                                                    "U+2028"),
    ("empty", "# only a comment\n", "the Dockerfile does not parse: file with no instructions"),
    ("bad escape", "# escape=x\n" + HEAD, "the Dockerfile's line 1: the escape directive takes"),
]


@pytest.mark.parametrize(("text", "expected"), [(text, expected) for _, text, expected in REFUSED],
                         ids=[name for name, _, _ in REFUSED])
def test_refused_dockerfile(tmp_path: Path, text: str, expected: str) -> None:
    """Each instruction, flag or directive off the allow-list gets its own one-line refusal."""
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    with pytest.raises(UploadError) as raised:
        check_dockerfile(path)
    assert str(raised.value).startswith(expected), str(raised.value)
    assert "\n" not in str(raised.value)


ALLOWED = [
    TINY_DOCKERFILE,
    "FROM scratch\nCOPY bot /bot\n",
    HEAD + "RUN make\nFROM ${BASE} AS build\nRUN make\nFROM build\nCOPY --from=build /out /bot\n"
    "COPY --from=0 /out /bot2\nCOPY --from=BUILD --chown=bot:bot /out /bot3\n",
    "# escape=`\n" + HEAD + "RUN echo a `\n  b\nCOPY [\"a b\", \"/c\"]\n",
    HEAD + "WORKDIR /bot\nENV A=1 B=\"2 3\"\nARG X=1\nUSER 10001\nLABEL org.example=1\n"
    "EXPOSE 8080\nENTRYPOINT [\"python\"]\nCMD [\"bot.py\"]\n",
]


@pytest.mark.parametrize("text", ALLOWED)
def test_allowed_dockerfile(tmp_path: Path, text: str) -> None:
    """The base image, scratch, earlier stages, local files and plain metadata pass."""
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    assert check_dockerfile(path).instructions == parse_dockerfile(text).instructions


def test_reading_follows_buildkit() -> None:
    """Continuations skip blank and comment lines, and `# escape=` changes the escape."""
    text = "# escape=`\n# note\nFROM x AS y\n\nRUN a `\n\n  # inside\n  b\ncopy --from=y a b\n"
    read = parse_dockerfile(text)
    assert read.escape == "`"
    assert [(item.line, item.keyword, item.flags, item.value) for item in read.instructions] == [
        (3, "FROM", (), ("x", "AS", "y")), (5, "RUN", (), ("a   b",)),
        (9, "COPY", ("--from=y",), ("a", "b"))]


def test_dockerfile_not_text(tmp_path: Path) -> None:
    """A Dockerfile that is not UTF-8 is refused in one line."""
    path = tmp_path / "Dockerfile"
    path.write_bytes(b"FROM \xff\xfe\n")
    with pytest.raises(UploadError, match=r"^the Dockerfile is not UTF-8 text$"):
        check_dockerfile(path)
