"""The ``llm_server`` fixtures: one scriptable OpenAI-compatible server a session
(:class:`evalkit.chat_server.ChatServer`), reset for every test::

    def test_x(llm_server):
        llm_server.script(Reply(content="hello"), Reply(status=429, headers={"retry-after": "0"}))
        ... Endpoint(llm_server.base_url) ...
        assert llm_server.requests[0].body["model"] == "m"
"""

from __future__ import annotations

import pytest

from evalkit.chat_server import ChatServer


@pytest.fixture(scope="session")
def llm_server_session():
    server = ChatServer().start()
    yield server
    server.stop()


@pytest.fixture
def llm_server(llm_server_session):
    llm_server_session.reset()
    yield llm_server_session
    llm_server_session.reset()
