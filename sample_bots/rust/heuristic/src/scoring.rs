//! Scores of the portable heuristic: every legal action gets one, the highest wins, and ties
//! go to the lowest action id (docs/portable-heuristic.md).

use crate::cards::{Figures, HIDDEN};
use crate::pb::{ActionKind, DecisionRequest, LegalAction, Observation, TrickPlay};

/// The suit index of coins in the Italian decks.
const COINS: i32 = 1;
/// The rank index of the seven in the Italian decks.
const SEVEN: i32 = 6;
/// The game where a declaration claims 31 card points.
const BRISCOLA_31: &str = "briscola-31";
/// The game a seat loses by taking the most points, or none: it wants one point, then no more.
const AVOID_GAME: &str = "tressette-non-prendere";
/// The thirds of one point in family T.
const ONE_POINT: i32 = 3;

/// The id of the best-scoring legal action (ties to the lowest id); `None` when there is none.
pub fn choose(figures: &Figures, request: &DecisionRequest) -> Option<u32> {
    let observation = request.observation.clone().unwrap_or_default();
    let mut best: Option<(i64, u32)> = None;
    for action in &request.legal_actions {
        let score = score(figures, &observation, action);
        let better = match best {
            None => true,
            Some((best_score, best_id)) => {
                score > best_score || (score == best_score && action.id < best_id)
            }
        };
        if better {
            best = Some((score, action.id));
        }
    }
    best.map(|(_, id)| id)
}

/// The score of one legal action in one observation.
pub fn score(figures: &Figures, observation: &Observation, action: &LegalAction) -> i64 {
    match action.kind() {
        ActionKind::Swap => 5000,
        ActionKind::Declare => score_declare(figures, observation),
        ActionKind::Capture => score_capture(figures, observation, action),
        ActionKind::Play if is_winning_card(figures, observation, action) => {
            3000 - figures.values(&action.cards)
        }
        ActionKind::Play if figures.game == AVOID_GAME => {
            score_avoid_play(figures, observation, action)
        }
        ActionKind::Play | ActionKind::PlayFaceDown => 2000 - figures.values(&action.cards),
        ActionKind::Keep | ActionKind::Done | ActionKind::Draw => 1000,
        ActionKind::Give | ActionKind::Discard if figures.game == AVOID_GAME => {
            1000 + figures.values(&action.cards)
        }
        ActionKind::Give | ActionKind::Discard => 1000 - figures.values(&action.cards),
        ActionKind::Call => score_call(figures, action),
        ActionKind::Pass => 600,
        ActionKind::Bid => 900 - i64::from(action.value.unwrap_or(0)),
        ActionKind::Redeal | ActionKind::Other | ActionKind::Unspecified => 0,
    }
}

/// DECLARE: 4000; in briscola-31 only once the own side has 31 points, else -5000.
fn score_declare(figures: &Figures, observation: &Observation) -> i64 {
    if figures.game == BRISCOLA_31 && own_side_points(observation) < 31 {
        -5000
    } else {
        4000
    }
}

/// The card points of the seat and of every teammate.
fn own_side_points(observation: &Observation) -> i64 {
    std::iter::once(&observation.seat)
        .chain(&observation.teammates)
        .filter_map(|&seat| usize::try_from(seat).ok())
        .filter_map(|seat| observation.points.get(seat))
        .map(|&points| i64::from(points))
        .sum()
}

/// Whether the seat's own points are under one point (3 thirds).
fn needs_a_point(observation: &Observation) -> bool {
    let own = usize::try_from(observation.seat)
        .ok()
        .and_then(|seat| observation.points.get(seat))
        .copied()
        .unwrap_or(0);
    own < ONE_POINT
}

/// A PLAY of the avoid game that is no winning card: lead the strongest card while the seat
/// needs a point, else the cheapest; follow with the dearest card that does not take the lead,
/// else the cheapest. A play of other than one visible card scores as in any game.
fn score_avoid_play(figures: &Figures, observation: &Observation, action: &LegalAction) -> i64 {
    let [card] = action.cards[..] else {
        return 2000 - figures.values(&action.cards);
    };
    let Some(figures_of_card) = figures.card(card) else {
        return 2000 - figures.values(&action.cards);
    };
    if observation.trick.is_empty() {
        return if needs_a_point(observation) {
            2000 + i64::from(figures_of_card.strength)
        } else {
            2000 - figures.value(card)
        };
    }
    match trick_best(figures, observation) {
        Some(best) if beats(figures, observation.trump_suit, card, best.card) => {
            1000 - figures.value(card)
        }
        _ => 2000 + figures.value(card),
    }
}

/// CAPTURE: 3000, plus cards taken, coins, sevens and the settebello, plus a sweep bonus.
fn score_capture(figures: &Figures, observation: &Observation, action: &LegalAction) -> i64 {
    let mut score = 3000 + 10 * action.captured.len() as i64;
    if figures.italian {
        for card in action.cards.iter().chain(&action.captured) {
            let Some(card) = figures.card(*card) else {
                continue;
            };
            let coins = card.suit == COINS;
            let seven = card.rank == SEVEN;
            score += 5 * i64::from(coins) + 3 * i64::from(seven) + 20 * i64::from(coins && seven);
        }
    }
    if action.captured.len() == observation.table.len() {
        score += 100;
    }
    score
}

/// CALL: 1000 + the value of the one card it names, else + the rank it names, else 1000.
fn score_call(figures: &Figures, action: &LegalAction) -> i64 {
    if let [card] = action.cards[..] {
        1000 + figures.value(card)
    } else if action.rank >= 0 {
        1000 + i64::from(action.rank)
    } else {
        1000
    }
}

/// Whether a PLAY of one card takes, in family B or T, a trick worth the family's threshold
/// from the other side; in the avoid game, a trick worth anything, and only while the seat
/// needs a point.
fn is_winning_card(figures: &Figures, observation: &Observation, action: &LegalAction) -> bool {
    let Some(family) = figures.family else {
        return false;
    };
    let avoid = figures.game == AVOID_GAME;
    if avoid && !needs_a_point(observation) {
        return false;
    }
    let threshold = if avoid { 1 } else { family.threshold };
    let [card] = action.cards[..] else {
        return false;
    };
    if card == HIDDEN {
        return false;
    }
    let Some(best) = trick_best(figures, observation) else {
        return false;
    };
    if observation.teammates.contains(&best.seat)
        || !beats(figures, observation.trump_suit, card, best.card)
    {
        return false;
    }
    let trick_points: i64 = observation
        .trick
        .iter()
        .map(|play| figures.points(play.card))
        .sum();
    trick_points + figures.points(card) >= i64::from(threshold)
}

/// The best visible card of the trick so far; `None` when no card of it is visible.
fn trick_best<'a>(figures: &Figures, observation: &'a Observation) -> Option<&'a TrickPlay> {
    let mut best: Option<&TrickPlay> = None;
    for play in observation.trick.iter().filter(|play| play.card != HIDDEN) {
        if best.is_none_or(|best| beats(figures, observation.trump_suit, play.card, best.card)) {
            best = Some(play);
        }
    }
    best
}

/// Whether `card` becomes the best over `best`: same suit and stronger, or a trump over a
/// card that is not.
fn beats(figures: &Figures, trump_suit: i32, card: i32, best: i32) -> bool {
    let (Some(card), Some(best)) = (figures.card(card), figures.card(best)) else {
        return false;
    };
    (card.suit == best.suit && card.strength > best.strength)
        || (trump_suit >= 0 && card.suit == trump_suit && best.suit != trump_suit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{family_of, FAMILY_B, FAMILY_T};
    use crate::pb::{Card, CardValues, Deck, MatchStart};

    const CUPS: i32 = 0;
    const SWORDS: i32 = 2;
    const CLUBS: i32 = 3;
    const ACE: i32 = 0;
    const TWO: i32 = 1;
    const THREE: i32 = 2;
    const FOUR: i32 = 3;
    const KNIGHT: i32 = 8;
    const KING: i32 = 9;

    /// The card id of a suit and rank in the test deck (suit-major, ten ranks).
    fn id(suit: i32, rank: i32) -> i32 {
        suit * 10 + rank
    }

    /// What the arena sends as `MatchStart.card_values` for the game (docs/protocol.md, "Card
    /// values"): the briscola or tressette order and points, by rank index over the 40 cards.
    fn card_values(game: &str) -> CardValues {
        let (strength, points): ([i32; 10], [i32; 10]) = match family_of(game) {
            Some(family) if *family == FAMILY_B => (
                [9, 0, 8, 1, 2, 3, 4, 5, 6, 7],
                [11, 0, 10, 0, 0, 0, 0, 2, 3, 4],
            ),
            Some(_) => (
                [7, 8, 9, 0, 1, 2, 3, 4, 5, 6],
                [3, 1, 1, 0, 0, 0, 0, 1, 1, 1],
            ),
            None => return CardValues::default(),
        };
        CardValues {
            trick_strength: (0..40).map(|card| strength[card % 10]).collect(),
            points: (0..40).map(|card| points[card % 10]).collect(),
            ..CardValues::default()
        }
    }

    fn figures(game: &str, deck: &str) -> Figures {
        Figures::from_match_start(&MatchStart {
            game: game.to_string(),
            deck: Some(italian_deck(deck)),
            card_values: Some(card_values(game)),
            ..MatchStart::default()
        })
    }

    /// A deck of four suits of ten ranks, numbered suit by suit.
    fn italian_deck(name: &str) -> Deck {
        let cards = (0..4)
            .flat_map(|suit| (0..10).map(move |rank| (suit, rank)))
            .map(|(suit, rank)| Card {
                id: id(suit, rank),
                suit,
                rank,
                ..Card::default()
            })
            .collect();
        Deck {
            name: name.to_string(),
            cards,
            ..Deck::default()
        }
    }

    #[test]
    fn strength_and_points_come_from_the_card_values() {
        let made_up = CardValues {
            points: (0..40).map(|card| card % 7).collect(),
            trick_strength: (0..40).map(|card| 39 - card).collect(),
            ..CardValues::default()
        };
        let start = |game: &str, values: Option<CardValues>| {
            Figures::from_match_start(&MatchStart {
                game: game.to_string(),
                deck: Some(italian_deck("italian-40")),
                card_values: values,
                ..MatchStart::default()
            })
        };
        for game in ["briscola", "tressette"] {
            let figures = start(game, Some(made_up.clone()));
            for card in 0..40 {
                assert_eq!(figures.value(card), i64::from(16 * (card % 7) + 39 - card));
            }
        }
        assert_eq!(start("high-card", Some(made_up)).value(id(CUPS, KING)), 9);
        assert_eq!(start("briscola", None).value(id(CUPS, ACE)), 0);
        assert_eq!(start("briscola", None).value(id(CUPS, KING)), 9);
    }

    fn action(id: u32, kind: ActionKind, cards: &[i32]) -> LegalAction {
        LegalAction {
            id,
            kind: kind as i32,
            cards: cards.to_vec(),
            suit: -1,
            rank: -1,
            table: -1,
            ..LegalAction::default()
        }
    }

    fn request(observation: Observation, actions: Vec<LegalAction>) -> DecisionRequest {
        DecisionRequest {
            request_id: 7,
            observation: Some(observation),
            legal_actions: actions,
            ..DecisionRequest::default()
        }
    }

    fn trick(plays: &[(i32, i32)]) -> Observation {
        Observation {
            seat: 0,
            trump_suit: -1,
            trick: plays
                .iter()
                .map(|&(seat, card)| TrickPlay { seat, card })
                .collect(),
            ..Observation::default()
        }
    }

    #[test]
    fn families_follow_the_game_id() {
        assert_eq!(family_of("briscola"), Some(&FAMILY_B));
        assert_eq!(family_of("briscola-chiamata-morto"), Some(&FAMILY_B));
        assert_eq!(family_of("madrasso"), Some(&FAMILY_B));
        assert_eq!(family_of("tressette-toro"), Some(&FAMILY_T));
        assert_eq!(family_of("scopa"), None);
        assert_eq!(family_of("misere"), None);
    }

    #[test]
    fn values_are_sixteen_points_plus_strength() {
        let briscola = figures("briscola", "italian-40");
        assert_eq!(briscola.value(id(CUPS, ACE)), 16 * 11 + 9);
        assert_eq!(briscola.value(id(CUPS, THREE)), 16 * 10 + 8);
        assert_eq!(briscola.value(id(CUPS, TWO)), 0);
        assert_eq!(briscola.value(HIDDEN), 0);
        let tressette = figures("tressette", "italian-40");
        assert_eq!(tressette.value(id(CUPS, THREE)), 16 + 9);
        assert_eq!(tressette.value(id(CUPS, ACE)), 16 * 3 + 7);
        assert_eq!(tressette.value(id(CUPS, FOUR)), 0);
        let scopa = figures("scopa", "italian-40");
        assert_eq!(scopa.value(id(CUPS, KING)), 9);
        assert_eq!(
            scopa.values(&[id(CUPS, KING), id(SWORDS, FOUR), HIDDEN]),
            12
        );
    }

    #[test]
    fn kinds_rank_in_the_order_of_the_table() {
        let figures = figures("scopa", "italian-40");
        let observation = Observation::default();
        let kinds = [
            (ActionKind::Swap, 5000),
            (ActionKind::Declare, 4000),
            (ActionKind::Keep, 1000),
            (ActionKind::Done, 1000),
            (ActionKind::Draw, 1000),
            (ActionKind::Bid, 900),
            (ActionKind::Pass, 600),
            (ActionKind::Redeal, 0),
            (ActionKind::Other, 0),
        ];
        for (kind, expected) in kinds {
            assert_eq!(
                score(&figures, &observation, &action(1, kind, &[])),
                expected,
                "{kind:?}"
            );
        }
    }

    #[test]
    fn the_cheapest_card_is_played_and_ties_go_to_the_lowest_id() {
        let figures = figures("briscola", "italian-40");
        let actions = vec![
            action(3, ActionKind::Play, &[id(CUPS, ACE)]),
            action(5, ActionKind::Play, &[id(SWORDS, TWO)]),
            action(4, ActionKind::Play, &[id(CLUBS, FOUR)]),
            action(2, ActionKind::Play, &[id(CUPS, TWO)]),
        ];
        assert_eq!(choose(&figures, &request(trick(&[]), actions)), Some(2));
        assert_eq!(choose(&figures, &request(trick(&[]), vec![])), None);
    }

    #[test]
    fn a_winning_card_takes_a_rich_trick_from_an_opponent() {
        let figures = figures("briscola", "italian-40");
        let ace = action(1, ActionKind::Play, &[id(CUPS, ACE)]);
        let two = action(2, ActionKind::Play, &[id(SWORDS, TWO)]);
        let observation = trick(&[(1, id(CUPS, KING))]);
        assert_eq!(score(&figures, &observation, &ace), 3000 - (16 * 11 + 9));
        assert_eq!(score(&figures, &observation, &two), 2000);
        assert_eq!(
            choose(
                &figures,
                &request(observation.clone(), vec![two.clone(), ace.clone()])
            ),
            Some(1)
        );

        let partner = Observation {
            teammates: vec![1],
            ..observation
        };
        assert_eq!(score(&figures, &partner, &ace), 2000 - (16 * 11 + 9));
        assert_eq!(choose(&figures, &request(partner, vec![two, ace])), Some(2));
    }

    #[test]
    fn a_winning_card_needs_the_threshold_and_must_beat_the_best() {
        let figures = figures("briscola", "italian-40");
        let knight = action(1, ActionKind::Play, &[id(CUPS, KNIGHT)]);
        // A four and a knight of cups: 3 points, below 10.
        assert_eq!(
            score(&figures, &trick(&[(1, id(CUPS, FOUR))]), &knight),
            2000 - (16 * 3 + 6)
        );
        // A king of cups beats the knight: not a winning card, whatever the points.
        let observation = trick(&[(1, id(CUPS, KING)), (2, id(CUPS, ACE))]);
        assert_eq!(score(&figures, &observation, &knight), 2000 - (16 * 3 + 6));
        // Another suit never wins without trumps.
        let off_suit = action(2, ActionKind::Play, &[id(SWORDS, THREE)]);
        assert_eq!(
            score(&figures, &trick(&[(1, id(CUPS, ACE))]), &off_suit),
            2000 - (16 * 10 + 8)
        );
    }

    #[test]
    fn a_trump_wins_and_the_best_card_is_followed_through_the_trick() {
        let figures = figures("briscola", "italian-40");
        let small_trump = action(1, ActionKind::Play, &[id(SWORDS, TWO)]);
        let mut observation = trick(&[(1, id(CUPS, ACE))]);
        observation.trump_suit = SWORDS;
        assert_eq!(score(&figures, &observation, &small_trump), 3000);
        // A bigger trump already in the trick: the two does not beat it.
        observation.trick.push(TrickPlay {
            seat: 2,
            card: id(SWORDS, FOUR),
        });
        assert_eq!(score(&figures, &observation, &small_trump), 2000);
        // Face-down plays are not winning cards.
        let face_down = action(3, ActionKind::PlayFaceDown, &[id(SWORDS, KING)]);
        assert_eq!(
            score(&figures, &observation, &face_down),
            2000 - (16 * 4 + 7)
        );
    }

    #[test]
    fn hidden_cards_of_the_trick_are_skipped() {
        let figures = figures("briscola", "italian-40");
        let ace = action(1, ActionKind::Play, &[id(CUPS, ACE)]);
        assert_eq!(
            score(&figures, &trick(&[(1, HIDDEN)]), &ace),
            2000 - (16 * 11 + 9)
        );
        let observation = trick(&[(1, HIDDEN), (2, id(CUPS, KING))]);
        assert_eq!(score(&figures, &observation, &ace), 3000 - (16 * 11 + 9));
    }

    #[test]
    fn tressette_wins_a_trick_worth_a_point() {
        let figures = figures("tressette", "italian-40");
        let three = action(1, ActionKind::Play, &[id(CUPS, THREE)]);
        // An ace (3 thirds) and the three (1 third) reach a point; a four and the three do not.
        assert_eq!(
            score(&figures, &trick(&[(1, id(CUPS, ACE))]), &three),
            3000 - (16 + 9)
        );
        assert_eq!(
            score(&figures, &trick(&[(1, id(CUPS, FOUR))]), &three),
            2000 - (16 + 9)
        );
    }

    /// A trick in the avoid game, seen by seat 0 holding `thirds` of its own.
    fn avoid(plays: &[(i32, i32)], thirds: i32) -> Observation {
        Observation {
            points: vec![thirds, 0, 0],
            ..trick(plays)
        }
    }

    #[test]
    fn the_avoid_game_takes_any_point_while_it_needs_one() {
        let figures = figures(AVOID_GAME, "italian-40");
        let two = action(1, ActionKind::Play, &[id(CUPS, TWO)]);
        let observation = avoid(&[(1, id(CUPS, FOUR))], 2);
        // A two (1 third) over a four: a trick worth something while the seat has 2 thirds.
        assert_eq!(score(&figures, &observation, &two), 3000 - (16 + 8));
        // With 3 thirds (one point) the same card takes the lead: the last resort.
        assert_eq!(
            score(&figures, &avoid(&[(1, id(CUPS, FOUR))], 3), &two),
            1000 - (16 + 8)
        );
    }

    #[test]
    fn the_avoid_game_sheds_the_dearest_card_that_loses_the_trick() {
        let figures = figures(AVOID_GAME, "italian-40");
        let ace = action(1, ActionKind::Play, &[id(CUPS, ACE)]);
        let king = action(2, ActionKind::Play, &[id(CUPS, KING)]);
        let three = action(3, ActionKind::Play, &[id(CUPS, THREE)]);
        let observation = avoid(&[(1, id(CUPS, TWO))], 3);
        assert_eq!(score(&figures, &observation, &ace), 2000 + 16 * 3 + 7);
        assert_eq!(score(&figures, &observation, &king), 2000 + 16 + 6);
        assert_eq!(score(&figures, &observation, &three), 1000 - (16 + 9));
        let actions = vec![three, king, ace];
        assert_eq!(choose(&figures, &request(observation, actions)), Some(1));
    }

    #[test]
    fn the_avoid_game_leads_the_strongest_card_only_while_it_needs_a_point() {
        let figures = figures(AVOID_GAME, "italian-40");
        let actions = vec![
            action(1, ActionKind::Play, &[id(CUPS, ACE)]),
            action(2, ActionKind::Play, &[id(SWORDS, THREE)]),
            action(3, ActionKind::Play, &[id(CLUBS, FOUR)]),
        ];
        let needy = avoid(&[], 2);
        assert_eq!(score(&figures, &needy, &actions[1]), 2000 + 9);
        assert_eq!(choose(&figures, &request(needy, actions.clone())), Some(2));
        assert_eq!(choose(&figures, &request(avoid(&[], 5), actions)), Some(3));
    }

    #[test]
    fn the_avoid_game_passes_and_sets_aside_the_dearest_card() {
        let figures = figures(AVOID_GAME, "italian-40");
        let give = action(1, ActionKind::Give, &[id(CUPS, ACE)]);
        let discard = action(2, ActionKind::Discard, &[id(CUPS, KING)]);
        let observation = Observation::default();
        assert_eq!(score(&figures, &observation, &give), 1000 + 16 * 3 + 7);
        assert_eq!(score(&figures, &observation, &discard), 1000 + 16 + 6);
    }

    #[test]
    fn no_winning_card_outside_families_b_and_t() {
        let figures = figures("misere", "italian-40");
        let king = action(1, ActionKind::Play, &[id(CUPS, KING)]);
        assert_eq!(
            score(&figures, &trick(&[(1, id(CUPS, ACE))]), &king),
            2000 - 9
        );
    }

    #[test]
    fn captures_count_cards_coins_sevens_settebello_and_sweeps() {
        let figures = figures("scopa", "italian-40");
        let settebello = id(COINS, SEVEN);
        let mut capture = action(1, ActionKind::Capture, &[id(SWORDS, SEVEN)]);
        capture.captured = vec![settebello];
        let table = |cards: &[i32]| Observation {
            table: cards.to_vec(),
            ..Observation::default()
        };
        // The seven of swords takes the settebello off a table of two cards.
        let two_cards = table(&[settebello, id(CUPS, FOUR)]);
        assert_eq!(
            score(&figures, &two_cards, &capture),
            3000 + 10 + 3 + (5 + 3 + 20)
        );
        // The same capture sweeps a table of one card.
        assert_eq!(
            score(&figures, &table(&[settebello]), &capture),
            3000 + 10 + 31 + 100
        );
        // Outside the Italian decks suits and ranks earn nothing.
        let french = self::figures("scopa", "french-52");
        assert_eq!(score(&french, &two_cards, &capture), 3000 + 10);
    }

    #[test]
    fn declaring_31_waits_for_the_own_side_points() {
        let figures = figures("briscola-31", "italian-40");
        let declare = action(1, ActionKind::Declare, &[]);
        let points = vec![40, 20, 0, 10];
        let mut observation = Observation {
            seat: 1,
            points,
            ..Observation::default()
        };
        assert_eq!(score(&figures, &observation, &declare), -5000);
        observation.teammates = vec![3];
        assert_eq!(score(&figures, &observation, &declare), -5000);
        observation.points[3] = 11;
        assert_eq!(score(&figures, &observation, &declare), 4000);
        let briscola = self::figures("briscola", "italian-40");
        assert_eq!(score(&briscola, &Observation::default(), &declare), 4000);
    }

    #[test]
    fn gives_calls_and_bids() {
        let figures = figures("briscola-chiamata", "italian-40");
        let observation = Observation::default();
        let give = action(1, ActionKind::Discard, &[id(CUPS, KING), id(CUPS, TWO)]);
        assert_eq!(score(&figures, &observation, &give), 1000 - (16 * 4 + 7));
        let call_card = action(2, ActionKind::Call, &[id(CUPS, ACE)]);
        assert_eq!(
            score(&figures, &observation, &call_card),
            1000 + 16 * 11 + 9
        );
        let mut call_rank = action(3, ActionKind::Call, &[]);
        call_rank.rank = KING;
        assert_eq!(score(&figures, &observation, &call_rank), 1000 + 9);
        let mut call_suit = action(4, ActionKind::Call, &[]);
        call_suit.suit = CUPS;
        assert_eq!(score(&figures, &observation, &call_suit), 1000);
        let mut bid = action(5, ActionKind::Bid, &[]);
        bid.value = Some(70);
        assert_eq!(score(&figures, &observation, &bid), 830);
        assert_eq!(
            score(&figures, &observation, &action(6, ActionKind::Bid, &[])),
            900
        );
        let actions = vec![bid, action(6, ActionKind::Pass, &[])];
        assert_eq!(choose(&figures, &request(observation, actions)), Some(5));
    }
}
