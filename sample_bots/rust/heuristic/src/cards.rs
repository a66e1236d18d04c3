//! Card figures of the portable heuristic: each card's suit, rank, strength, points and value.
//! In families B and T strength and points are `MatchStart.card_values`' `trick_strength` and
//! `points` (a card they do not cover has its rank index and no points); family N uses the rank
//! index and no points.

use crate::pb::MatchStart;

/// The card id of a card the seat may not see.
pub const HIDDEN: i32 = -1;

/// The points a trick must be worth before the heuristic spends a card to win it (strength and
/// points come from `MatchStart.card_values`).
#[derive(Debug, PartialEq, Eq)]
pub struct Family {
    pub threshold: i32,
}

/// Family B: the briscola games and madrasso (a trick worth an ace or a three).
pub const FAMILY_B: Family = Family { threshold: 10 };

/// Family T: the tressette games (a trick worth one point: three thirds).
pub const FAMILY_T: Family = Family { threshold: 3 };

/// Family B or T for a game id; `None` for every other game (family N).
pub fn family_of(game: &str) -> Option<&'static Family> {
    if game.starts_with("briscola") || game == "madrasso" {
        Some(&FAMILY_B)
    } else if game.starts_with("tressette") {
        Some(&FAMILY_T)
    } else {
        None
    }
}

/// What the heuristic reads of one card.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Card {
    pub suit: i32,
    pub rank: i32,
    pub strength: i32,
    pub points: i32,
}

/// What the heuristic knows of a match: the game, its family, the deck and each card's figures.
#[derive(Debug, Clone)]
pub struct Figures {
    pub game: String,
    pub family: Option<&'static Family>,
    /// True for the Italian decks, where coins, sevens and the settebello count in captures.
    pub italian: bool,
    cards: Vec<Card>,
}

impl Figures {
    /// Read the game id, every card of `MatchStart.deck` and, in families B and T, each card's
    /// trick strength and points from `MatchStart.card_values`.
    pub fn from_match_start(start: &MatchStart) -> Self {
        let deck = start.deck.as_ref();
        let family = family_of(&start.game);
        let empty: &[i32] = &[];
        let (strength, points) = match (family, start.card_values.as_ref()) {
            (Some(_), Some(values)) => (values.trick_strength.as_slice(), values.points.as_slice()),
            _ => (empty, empty),
        };
        let mut cards = Vec::new();
        for card in deck.map(|deck| deck.cards.as_slice()).unwrap_or_default() {
            let Ok(id) = usize::try_from(card.id) else {
                continue;
            };
            if cards.len() <= id {
                cards.resize(id + 1, Card::default());
            }
            cards[id] = Card {
                suit: card.suit,
                rank: card.rank,
                strength: strength.get(id).copied().unwrap_or(card.rank),
                points: points.get(id).copied().unwrap_or(0),
            };
        }
        Self {
            game: start.game.clone(),
            family,
            italian: deck.is_some_and(|deck| deck.name.starts_with("italian")),
            cards,
        }
    }

    /// The figures of a card id; `None` for a hidden card (or an id outside the deck).
    pub fn card(&self, card: i32) -> Option<&Card> {
        usize::try_from(card).ok().and_then(|id| self.cards.get(id))
    }

    /// The value of a card, 16 × points + strength; a hidden card is worth nothing.
    pub fn value(&self, card: i32) -> i64 {
        self.card(card).map_or(0, |card| {
            16 * i64::from(card.points) + i64::from(card.strength)
        })
    }

    /// The value of a list of cards: the sum of their values.
    pub fn values(&self, cards: &[i32]) -> i64 {
        cards.iter().map(|&card| self.value(card)).sum()
    }

    /// The points of a card; a hidden card has none.
    pub fn points(&self, card: i32) -> i64 {
        self.card(card).map_or(0, |card| i64::from(card.points))
    }
}
