"""``poetone/reference``: an Inspect model that answers each Songci prompt with an authentic poem.

No weights, no network: it is the README's main job and the human row of every report (what the
Song masters score on this benchmark). See ``poetone.reference`` for which poem answers what.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

from poetone.reference import answer_for_message

MODELS = ("reference",)


@modelapi(name="poetone")
class ReferenceModel(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        if model_name not in MODELS:
            raise ValueError(
                f"unknown poetone model {model_name!r}; poetone provides {', '.join('poetone/' + m for m in MODELS)}"
            )
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        users = [m for m in input if isinstance(m, ChatMessageUser)]
        if not users:
            raise ValueError("poetone/reference needs a user message holding a Songci prompt")
        return ModelOutput.from_content(model="poetone/reference", content=answer_for_message(users[-1].text))

    def max_connections(self) -> int:
        return 32
