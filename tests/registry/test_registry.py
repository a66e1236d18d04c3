"""Bot images through a real registry (Debian's ``docker-registry`` on 127.0.0.1) and the real
Docker engine: a push pins the image by digest; a deleted image is pulled by that digest,
checked and kept; a registry that is down, an image it does not hold and content that does not
match its digest are each refused with one line naming them.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.sandbox.images import BotImage, inspect_bot_image
from arena.sandbox.registry import (
    DigestMismatch,
    ImageNotInRegistry,
    RegistryError,
    RegistryUnreachable,
    check_registry,
    ensure_local,
    push_image,
    push_target,
    split_pinned,
)

from .conftest import (
    PrivateRegistry,
    Pushed,
    StampedImage,
    free_port,
    is_local,
    one_line,
    remove_image,
    require_docker,
)

ZERO_DIGEST = "sha256:" + "0" * 64


def test_a_push_pins_the_image_by_digest(registry: PrivateRegistry, pushed: Pushed) -> None:
    image = pushed()
    parts = split_pinned(image.pinned)
    assert parts is not None, image.pinned
    repository, digest = parts
    assert repository == f"{registry.address}/{image.ref.rpartition(':')[0]}"
    assert image.digest == digest
    assert registry.has_manifest(repository, digest)
    described = image.describe()
    assert described["image"] == image.pinned and described["tag"] == image.ref
    assert described["image_id"] == image.image_id


def test_a_deleted_image_is_pulled_by_digest_checked_and_kept(
        registry: PrivateRegistry, pushed: Pushed) -> None:
    image = pushed()
    remove_image(image.image_id)
    assert not is_local(image.image_id)
    ensure_local(image)
    assert inspect_bot_image(image.pinned).image_id == image.image_id
    registry.stop()
    try:
        ensure_local(image)  # kept: no registry needed the second time
    finally:
        registry.start()


def test_an_image_named_by_digest_is_pinned_when_inspected(pushed: Pushed) -> None:
    image = pushed()
    ensure_local(image)
    inspected = inspect_bot_image(image.pinned)
    assert inspected.pinned == image.pinned and inspected.name == image.name
    repository = image.pinned.partition("@")[0]
    require_docker().api.tag(image.image_id, repository, "again")
    assert inspect_bot_image(f"{repository}:again").pinned == image.pinned


def test_a_tampered_manifest_is_refused_naming_its_digest(
        registry: PrivateRegistry, stamped_image: StampedImage) -> None:
    image = push_image(stamped_image(), registry.address)
    manifest = registry.blob(image.digest)
    manifest.write_bytes(manifest.read_bytes() + b"\n")
    remove_image(image.image_id)
    with pytest.raises(DigestMismatch) as refused:
        ensure_local(image)
    line = one_line(refused.value)
    assert line.startswith(f"the registry {registry.address} served {image.pinned} with "
                           "content that does not match its digest (")
    assert line.endswith("): refused")
    assert not is_local(image.image_id)


def test_an_image_id_other_than_the_recorded_one_is_refused(pushed: Pushed) -> None:
    image = pushed()
    ensure_local(image)
    other = replace(image, image_id=ZERO_DIGEST)
    with pytest.raises(DigestMismatch) as refused:
        ensure_local(other)
    line = one_line(refused.value)
    assert image.pinned in line and "sha256:000000000000" in line


def test_a_registry_that_does_not_answer_is_named(pushed: Pushed) -> None:
    address = f"127.0.0.1:{free_port()}"
    repository = pushed().pinned.partition("@")[0].partition("/")[2]
    image = BotImage(ref="x", image_id="", name="random", version="1", games=("*",),
                     pinned=f"{address}/{repository}@{ZERO_DIGEST}")
    with pytest.raises(RegistryUnreachable) as refused:
        ensure_local(image)
    assert one_line(refused.value) == (f"the registry {address} does not answer at "
                                       f"http://{address}/v2/ (connection refused): cannot "
                                       f"pull {image.pinned}")


@pytest.mark.parametrize("missing", ["digest", "repository"])
def test_an_image_the_registry_does_not_hold_is_named(
        missing: str, registry: PrivateRegistry, pushed: Pushed) -> None:
    repository = pushed().pinned.partition("@")[0]
    if missing == "repository":
        repository = f"{registry.address}/cardarena-test-registry/nobody"
    pinned = f"{repository}@{ZERO_DIGEST}"
    image = BotImage(ref=pinned, image_id="", name="x", version="1", games=("*",),
                     pinned=pinned)
    with pytest.raises(ImageNotInRegistry) as refused:
        ensure_local(image)
    assert one_line(refused.value) == (f"the registry {registry.address} does not hold "
                                       f"{pinned} (manifest unknown): cannot pull it")


def test_a_push_to_a_registry_that_does_not_answer_is_named(sample_image: BotImage) -> None:
    address = f"127.0.0.1:{free_port()}"
    repository, tag = push_target(sample_image, address)
    with pytest.raises(RegistryUnreachable) as refused:
        push_image(sample_image, address)
    assert not is_local(f"{repository}:{tag}"), "the tag for the push was left behind"
    assert is_local(sample_image.image_id)
    line = one_line(refused.value)
    assert line == (f"the registry {address} does not answer at http://{address}/v2/ "
                    f"(connection refused): cannot push {repository}:{tag}")


def test_a_local_image_is_left_alone(sample_image: BotImage) -> None:
    image = inspect_bot_image(sample_image.ref)
    assert image.pinned == "" and image.digest == ""
    ensure_local(image)
    assert image.describe()["image"] == image.ref and "tag" not in image.describe()


@pytest.mark.parametrize(("given", "named"), [
    ("127.0.0.1:5000", "127.0.0.1:5000"),
    ("http://127.0.0.1:5000/", "127.0.0.1:5000"),
    ("registry.example.com/team/bots", "registry.example.com/team/bots"),
])
def test_registry_names(given: str, named: str) -> None:
    assert check_registry(given) == named


@pytest.mark.parametrize("given", ["", "not a registry", "host:port", "-host", "host/UPPER"])
def test_a_bad_registry_name_is_one_line(given: str) -> None:
    with pytest.raises(RegistryError) as refused:
        check_registry(given)
    assert "is not HOST[:PORT][/PATH]" in one_line(refused.value)


@pytest.mark.parametrize(("ref", "target"), [
    ("cardarena-bot/random:1.0.0", ("R/cardarena-bot/random", "1.0.0")),
    ("127.0.0.1:5000/cardarena-bot/random:1", ("R/cardarena-bot/random", "1")),
    ("R/cardarena-bot/random:2", ("R/cardarena-bot/random", "2")),
    ("docker.io/library/busybox:latest", ("R/library/busybox", "latest")),
    ("sha256:" + "2" * 64, ("R/cardarena-bot/random-bot", "1.0")),
])
def test_an_image_is_pushed_under_its_own_name_in_the_registry(
        ref: str, target: tuple[str, str]) -> None:
    registry = "127.0.0.1:6000"
    image = BotImage(ref=ref.replace("R/", f"{registry}/"), image_id="sha256:" + "1" * 64,
                     name="Random Bot", version="1.0", games=("*",))
    expected = (target[0].replace("R/", f"{registry}/"), target[1])
    assert push_target(image, registry) == expected
