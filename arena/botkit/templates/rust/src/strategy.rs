//! The bot's strategy: one `Player` per match, asked for each decision. Make it play well here.

use crate::pb::{ActionKind, DecisionRequest, LegalAction, MatchStart};
use crate::server::Strategy;

/// The player of one match.
pub struct Player {
    /// The rank index of every card, by card id (from the deck in `MatchStart`).
    ranks: Vec<i32>,
}

impl Strategy for Player {
    /// Called once per match (each match gets a new `Player`), before any decision.
    fn start(start: &MatchStart) -> Self {
        // What the match is: start.game (the game id, such as "briscola"), start.parameters,
        // start.seat, start.num_seats, start.teams and start.deck: each card's id, suit, rank
        // and names (card.code is "7D", card.name "seven of coins"). A rank is the card's place
        // in the deck; its worth in this game is in start.card_values: points and
        // trick_strength by card id (docs/protocol.md, "Card values").
        let mut ranks = Vec::new();
        for card in start.deck.iter().flat_map(|deck| &deck.cards) {
            let Ok(id) = usize::try_from(card.id) else {
                continue;
            };
            if ranks.len() <= id {
                ranks.resize(id + 1, 0);
            }
            ranks[id] = card.rank;
        }
        Player { ranks }
    }

    /// The id of one of `request.legal_actions`.
    fn decide(&mut self, request: &DecisionRequest) -> u32 {
        // What this seat may know is request.observation (hidden cards are -1):
        //   .hand              this seat's cards, as card ids
        //   .trick             the cards played to this trick: (seat, card) pairs
        //   .table             the cards on the table (fishing games such as scopa)
        //   .trump_suit        the trump suit where there is one (-1 otherwise)
        //   .points, .scores   this hand's card points and the match's scores, per seat
        //   .events            the public history: deals, bids, plays, captures...
        // Each legal action says what it does: action.kind() (Play, Bid, Capture, Pass...),
        // action.cards, action.captured, action.value, action.label ("7D", "pass").
        // Time left: request.time_left (decision_ms for this decision, bank_ms in the bank).
        //
        // Put your strategy here. This one plays its lowest card, or else the first action.
        if let Some(lowest) = self.lowest_card_play(&request.legal_actions) {
            return lowest.id;
        }
        request.legal_actions.first().map_or(0, |action| action.id)
    }
}

impl Player {
    /// The action that plays the single card of the lowest rank index, if any plays one card.
    fn lowest_card_play<'a>(&self, actions: &'a [LegalAction]) -> Option<&'a LegalAction> {
        actions
            .iter()
            .filter(|action| action.kind() == ActionKind::Play && action.cards.len() == 1)
            .min_by_key(|action| (self.rank(action.cards[0]), action.id))
    }

    /// The rank index of a card (-1 for a hidden card).
    fn rank(&self, card: i32) -> i32 {
        let id = usize::try_from(card).ok();
        id.and_then(|id| self.ranks.get(id).copied()).unwrap_or(-1)
    }
}
