"""Inter-rater agreement for any ratings (units x raters x items): PAo, adjacent agreement,
Krippendorff's alpha, Gwet's AC1/AC2, weighted kappa, Spearman and Kendall, with bootstrap CIs.

Shared by `poemetric agree`, the analysis stage (judge vs experts, experts vs experts) and the
survey's admin page. Statistics and their N/A handling are defined in docs/agreement.md.
"""

from poemetric.agreement_defaults import AGREEMENT_BOOTSTRAP, BOOTSTRAP_SEED
from poemetric.reliability.features import STATISTICS
from poemetric.reliability.ratings import Rating, Ratings, parse_scale, parse_score
from poemetric.reliability.report import OVERALL, Agreement, AgreementReport, agreement_report

__all__ = [
    "AGREEMENT_BOOTSTRAP",
    "BOOTSTRAP_SEED",
    "OVERALL",
    "STATISTICS",
    "Agreement",
    "AgreementReport",
    "Rating",
    "Ratings",
    "agreement_report",
    "parse_scale",
    "parse_score",
]
