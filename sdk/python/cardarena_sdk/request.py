"""One decision asked of the bot: the seat's observation, the legal actions and helpers."""

from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING

from cardarena_sdk import actions as _actions
from cardarena_sdk.decode import ObservationDecoder

if TYPE_CHECKING:
    from arena.games import Observation
    from arena.policies import Policy
    from arena.protocol.schema import agent as pb
    from cardarena_sdk.actions import KindLike
    from cardarena_sdk.match import MatchInfo


class Request:
    """A DecisionRequest with its match; answer ``Bot.act`` with one of ``legal_ids``."""

    __slots__ = ("_decoder", "_drawn", "_legal_actions", "_observation", "debug", "match", "raw")

    def __init__(self, message: pb.DecisionRequest, match: MatchInfo,
                 decoder: ObservationDecoder | None = None) -> None:
        """Wrap a DecisionRequest of ``match`` (``decoder``: the one of the seat's earlier ones)."""
        self.raw = message
        self._decoder = decoder
        self.match = match
        self.debug = ""
        """Text the bot may set for the match log (the arena keeps at most 1 KiB)."""
        self._observation: Observation | None = None
        self._legal_actions: list[pb.LegalAction] | None = None
        self._drawn: int | None = None
        """The id ``random_action`` drew from the message itself (so legal) before
        ``legal_actions`` was built, else None."""

    @property
    def legal_actions(self) -> list[pb.LegalAction]:
        """The legal actions, in the request's order (the list is built on first use)."""
        actions = self._legal_actions
        if actions is None:
            actions = self.legal_actions = list(self.raw.legal_actions)
        return actions

    @legal_actions.setter
    def legal_actions(self, actions: list[pb.LegalAction]) -> None:
        """Replace the list of legal actions the helpers use."""
        self._legal_actions = actions
        self._drawn = None

    @property
    def request_id(self) -> int:
        """The id the answer carries (the SDK fills it in)."""
        return self.raw.request_id

    @property
    def observation(self) -> Observation:
        """The engine Observation of this seat, engine legal actions included (built once)."""
        if self._observation is None:
            from arena.protocol import engine_action

            legal = sorted(engine_action(action.id) for action in self.legal_actions)
            decoder = self._decoder or ObservationDecoder()
            self._observation = decoder.observation(self.raw.observation, legal)
        return self._observation

    @property
    def legal_ids(self) -> list[int]:
        """The wire ids of the legal actions, in the request's order."""
        return [action.id for action in self.legal_actions]

    @property
    def decision_ms(self) -> int:
        """Milliseconds left for this decision."""
        return self.raw.time_left.decision_ms

    @property
    def bank_ms(self) -> int:
        """Milliseconds left in the match's time bank."""
        return self.raw.time_left.bank_ms

    def budget_s(self, budget_ms: float, share: float = 0.5) -> float:
        """Seconds to spend on this decision: ``budget_ms``, capped by ``share`` of the time
        the request leaves (decision time and bank), and at least a millisecond."""
        budget = budget_ms
        left = self.decision_ms + self.bank_ms
        if left > 0:
            budget = min(budget, left * share)
        return max(budget, 1) / 1000

    def policy_action(self, policy: Policy | None, rng: Random) -> int:
        """The wire id of ``policy``'s action (a ``reference_policy``), or a random legal one
        where there is no policy."""
        if policy is None:
            return self.random_action(rng)
        return self.wire_id(policy.act(self.observation))

    def is_legal(self, action_id: int) -> bool:
        """Whether ``action_id`` is one of ``legal_ids``."""
        return action_id == self._drawn or action_id in self.legal_ids

    def action(self, action_id: int) -> pb.LegalAction:
        """The legal action with this wire id; a ValueError when it is not legal."""
        return _actions.action_by_id(self.legal_actions, action_id)

    def actions_of_kind(self, kind: KindLike) -> list[pb.LegalAction]:
        """The legal actions of one kind ("PLAY", ``ActionKind.BID``, 4 ...)."""
        return _actions.actions_of_kind(self.legal_actions, kind)

    def actions_for_card(self, card: int, kind: KindLike | None = None) -> list[pb.LegalAction]:
        """The legal actions that play exactly ``card`` (optionally of one kind)."""
        return _actions.actions_for_card(self.legal_actions, card, kind)

    def action_for_card(self, card: int, kind: KindLike | None = None) -> int:
        """The wire id of the first legal action that plays exactly ``card``; else ValueError."""
        return _actions.action_for_card(self.legal_actions, card, kind)

    def playable_cards(self) -> list[int]:
        """The cards some single-card PLAY or CAPTURE action plays, in order."""
        return _actions.playable_cards(self.legal_actions)

    def random_action(self, rng: Random) -> int:
        """The wire id of a legal action drawn uniformly with ``rng``."""
        if self._legal_actions is not None:
            return rng.choice(self._legal_actions).id
        self._drawn = rng.choice(self.raw.legal_actions).id
        return self._drawn

    def wire_id(self, engine_action_id: int) -> int:
        """The wire id of an engine action (as policies return); a ValueError when illegal."""
        from arena.protocol import wire_action

        return self.action(wire_action(engine_action_id)).id

    def card_name(self, card: int, style: str = "code") -> str:
        """The name of a card of this match's deck; "??" for a hidden card."""
        return self.match.deck.card_name(card, style)

    def suit_of(self, card: int) -> int:
        """The suit index of a card."""
        return self.match.deck.suit_of(card)

    def rank_of(self, card: int) -> int:
        """The rank index of a card (its place in the deck, not its strength)."""
        return self.match.deck.rank_of(card)

    def points(self, card: int) -> int:
        """The card points of a card in this game; 0 in a game without card points."""
        return self.match.card_values.points(card)

    def strength(self, card: int) -> int:
        """The trick strength of a card; a ValueError in a game without tricks."""
        return self.match.card_values.strength(card)

    def takes_trick(self, card: int) -> bool:
        """Whether ``card``, played now, would be ahead of every card of the trick so far
        (True when it leads), with this observation's trump suit; a ValueError in a game
        without tricks, or when the trick holds a card this seat may not see."""
        played = [held for _, held in self.observation.trick]
        if not played:
            self.match.card_values.strength(card)  # a game without tricks is an error
            return True
        winner = self.match.card_values.trick_winner([*played, card], self.observation.trump_suit)
        return winner == len(played)

    def __repr__(self) -> str:
        """The request id, the seat and the legal action labels."""
        return (f"Request(id={self.request_id}, seat={self.match.seat}, "
                f"legal=[{_actions.describe(self.legal_actions)}])")
