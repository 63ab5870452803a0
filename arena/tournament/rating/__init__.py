"""Ratings: the seam every rating model stands behind (:mod:`.model`), the models, and the fold in schedule order."""

from .fold import RatingFold, check_record, deal_key, game_scores, games, ranks, rate, roster, schedule_order, scores_of
from .model import Belief, Rating, RatingModel, exposure, model_of, p_ahead, reads_scores, register
from .params import DEFAULT_MODEL, METHODS, MODEL_LABELS, MODELS, RatingParamError, RatingParams

__all__ = ["Belief", "DEFAULT_MODEL", "METHODS", "MODEL_LABELS", "MODELS", "Rating", "RatingFold", "RatingModel",
           "RatingParamError", "RatingParams",
           "check_record", "deal_key", "exposure", "game_scores", "games", "model_of", "p_ahead", "ranks", "rate",
           "reads_scores", "register", "roster", "schedule_order", "scores_of"]
