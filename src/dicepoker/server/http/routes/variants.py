"""The variants, their options and their rules (the lobby's form)."""

from __future__ import annotations

from fastapi import APIRouter

from dicepoker.bots import LADDER, LEVELS
from dicepoker.protocol import OptionInfo, VariantInfo, VariantList
from dicepoker.ratings import level_ratings
from dicepoker.rules import VARIANTS, get_rules
from dicepoker.view import rules_view

router = APIRouter(prefix="/api/variants", tags=["variants"])


@router.get("", response_model=VariantList)
async def variants() -> VariantList:
    return VariantList.build(
        levels=list(LEVELS),
        ladder=list(LADDER),
        level_ratings=level_ratings(),
        variants=[
            VariantInfo.build(
                name=variant.name,
                title=variant.title,
                min_players=get_rules(variant.name).min_players,
                max_players=get_rules(variant.name).max_players,
                options=[
                    OptionInfo.build(
                        name=spec.name,
                        type=spec.kind.__name__,
                        default=spec.default,
                        minimum=spec.minimum,
                        maximum=spec.maximum,
                        help=spec.help,
                        pool=spec.pool,
                    )
                    for spec in variant.options
                ],
                rules=rules_view(get_rules(variant.name)),
            )
            for variant in VARIANTS.values()
        ],
    )
