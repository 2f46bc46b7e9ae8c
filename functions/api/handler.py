"""Lambda entry: ``handler = Mangum(app, lifespan="off", api_gateway_base_path=...)``.

The app is built once per container, at import (the INIT phase). Configuration comes from the
environment: the ``PERTURBER_*`` limits of the service, ``PERTURBER_API_BASE_PATH`` (the stage or
custom-domain prefix to strip, e.g. ``/prod``; default ``/``), ``NLTK_DATA`` (``/opt/nltk_data``,
the layer), ``PERTURBER_WARM_SYNONYM=1`` to load WordNet during INIT, and the model-tier secrets
of ``functions.api.secrets`` and ``PERTURBER_LLM_*`` settings (read and checked by ``create_app``).
Mangum passes the API Gateway event to the app (``scope["aws.event"]``): its IAM authorizer
context is what lets a model-backed request spend the server's key (``perturber.service.auth``).
"""

from __future__ import annotations

import os

from mangum import Mangum

from perturber.credentials import set_api_key_provider
from perturber.service import Settings, create_app

from .secrets import llm_api_key

os.environ.setdefault("NLTK_DATA", "/opt/nltk_data")
set_api_key_provider(llm_api_key)
app = create_app(Settings.from_env())

if os.environ.get("PERTURBER_WARM_SYNONYM") == "1":  # pay the WordNet load in INIT, not per request
    import perturber

    perturber.perturb("warm the data", "synonym")

handler = Mangum(app, lifespan="off",
                 api_gateway_base_path=os.environ.get("PERTURBER_API_BASE_PATH", "/"))
