"""The seed page's argument table (SPEC 11), row by row, and the JSON Schema of a catalog."""

import pytest

from synsema.stdlib.llm import ProviderError, convert_args, input_schema
from synsema.stdlib.llm.convert import catalog_name, display, parse_param, wire_names

ENTRY = {"name": "t", "describe": "all types",
         "params": ["a: number", "ok: bool", "xs: list", "m: map", "s: text", "u",
                    "any_: any", "opt_s: text", "opt_u"],
         "optional": ["opt_s", "opt_u"]}


def conv(**args):
    return convert_args(args, ENTRY)


# one test per row of the table ----------------------------------------------------------
@pytest.mark.parametrize("given, expected", [("2", 2), (2, 2), ("2.5", 2.5), (2.5, 2.5),
                                             (" -7 ", -7), ("1e3", 1000.0), ("12345678901234567890", 12345678901234567890)])
def test_number_from_text_or_number(given, expected):
    out = conv(a=given)["a"]
    assert out == expected and type(out) is type(expected)


def test_number_ints_stay_int():
    assert type(conv(a="2")["a"]) is int and type(conv(a=2)["a"]) is int


@pytest.mark.parametrize("given", ["two", "", "1,000", "nan", "inf", "1_000", "0x10"])
def test_number_non_numeric_text_stays_text(given):
    assert conv(a=given) == {"a": given}


def test_number_given_a_bool_stays_bool():
    assert conv(a=True) == {"a": True}


@pytest.mark.parametrize("given, expected", [("true", True), ("false", False), ("True", True),
                                             (True, True), (False, False)])
def test_bool(given, expected):
    assert conv(ok=given)["ok"] is expected


def test_bool_other_text_stays():
    assert conv(ok="yes") == {"ok": "yes"}


def test_list_from_json_text():
    assert conv(xs="[1,2]") == {"xs": [1, 2]}
    assert conv(xs=[1, 2]) == {"xs": [1, 2]}
    assert conv(xs="1,2") == {"xs": "1,2"}
    assert conv(xs='{"a": 1}') == {"xs": '{"a": 1}'}


def test_map_from_json_text():
    assert conv(m='{"a":1}') == {"m": {"a": 1}}
    assert conv(m={"a": 1}) == {"m": {"a": 1}}
    assert conv(m="[1]") == {"m": "[1]"}
    assert conv(m="{bad") == {"m": "{bad"}


@pytest.mark.parametrize("given, expected", [(5, "5"), (5.0, "5"), (2.5, "2.5"), (True, "true"),
                                             (False, "false"), ("5", "5"), ([1, "a", None], '[1, "a", nothing]'),
                                             ({"k": 1.0}, '{"k": 1}')])
def test_text_stays_text(given, expected):
    assert conv(s=given) == {"s": expected}


@pytest.mark.parametrize("given, expected", [(2, "2"), (2.0, "2"), (0.1, "0.1"), (True, "true"), ("Lima", "Lima")])
def test_untyped_becomes_text(given, expected):
    assert conv(u=given) == {"u": expected}


@pytest.mark.parametrize("param", ["a", "ok", "xs", "m", "any_", "opt_s", "opt_u"])
@pytest.mark.parametrize("null", [None, "null"])
def test_null_drops_optional_or_typed_other_than_text(param, null):
    assert conv(**{param: null}) == {}


def test_null_for_required_text_or_untyped_is_kept():
    assert conv(s="null", u="null") == {"s": "null", "u": "null"}
    assert conv(s=None, u=None) == {"s": None, "u": None}


def test_any_keeps_the_value():
    assert conv(any_="2") == {"any_": "2"} and conv(any_=[1]) == {"any_": [1]}


def test_undeclared_keys_kept_as_they_came():
    assert conv(a="2", units="celsius", n="3") == {"a": 2, "units": "celsius", "n": "3"}


def test_seed_example_entry():
    add = {"name": "add", "describe": "Add two numbers", "params": ["a: number", "b: number"],
           "optional": ["b"]}
    assert convert_args({"a": "2", "b": 3}, add) == {"a": 2, "b": 3}
    assert convert_args({"a": "2", "b": "null"}, add) == {"a": 2}
    assert convert_args({"a": "two"}, add) == {"a": "two"}


def test_optional_absent_and_input_not_mutated():
    entry = {"name": "w", "describe": "Weather", "params": ["city"]}
    args = {"city": 7}
    assert convert_args(args, entry) == {"city": "7"}
    assert args == {"city": 7}


def test_no_entry_keeps_everything():
    assert convert_args({"a": "2"}, None) == {"a": "2"}


def test_display_numbers_the_synsema_way():
    assert [display(v) for v in (5, 5.0, 2.5, -0.1, 1e16, 1e20, 1.5e-7)] == \
        ["5", "5", "2.5", "-0.1", "1e+16", "1e+20", "1.5e-07"]


# schema -------------------------------------------------------------------------------
def test_input_schema_types_and_required():
    schema = input_schema(ENTRY)
    assert schema["type"] == "object"
    assert schema["properties"] == {
        "a": {"type": "number"}, "ok": {"type": "boolean"}, "xs": {"type": "array", "items": {}},
        "m": {"type": "object", "properties": {}, "additionalProperties": True},
        "s": {"type": "string"}, "u": {"type": "string"},
        "any_": {}, "opt_s": {"type": "string"}, "opt_u": {"type": "string"}}
    assert schema["required"] == ["a", "ok", "xs", "m", "s", "u", "any_"]


def test_input_schema_hand_written_entry_without_optional():
    schema = input_schema({"name": "w", "describe": "d", "params": ["city"]})
    assert schema == {"type": "object", "properties": {"city": {"type": "string"}},
                      "required": ["city"]}


def test_parse_param():
    assert parse_param("a: number") == ("a", "number")
    assert parse_param("  a :text ") == ("a", "text")
    assert parse_param("city") == ("city", None)
    with pytest.raises(ProviderError, match="did|type among"):
        parse_param("a: numbr", "add")
    with pytest.raises(ProviderError):
        parse_param(3, "add")


# host tools' entries: parameter descriptions and dotted names --------------------------
def test_param_describe_becomes_each_property_description():
    import synsema
    from synsema.stdlib.hosttools import catalog_entry

    @synsema.tool(name="bank.send_money")
    def send_money(recipient: str, amount: float, date: str = "today") -> dict:
        """Send money to an IBAN.

        :param recipient: the IBAN to pay
        :param amount: in euros
        """

    schema = input_schema(catalog_entry(send_money.__synsema_tool__))
    assert schema == {"type": "object", "required": ["recipient", "amount"], "properties": {
        "recipient": {"type": "string", "description": "the IBAN to pay"},
        "amount": {"type": "number", "description": "in euros"},
        "date": {"type": "string"}}}


def test_param_describe_of_an_unknown_or_empty_parameter_is_ignored():
    entry = {"name": "w", "params": ["city"], "param_describe": {"city": "", "zip": "x"}}
    assert input_schema(entry)["properties"] == {"city": {"type": "string"}}


def test_wire_names_map_dots_and_come_back():
    catalog = [{"name": "bank.send_money"}, {"name": "add"}, {"name": "my__tool"},
               {"name": "get-weather"}]
    assert wire_names(catalog) == ["bank__send_money", "add", "my__tool", "get-weather"]
    for entry, wire in zip(catalog, wire_names(catalog)):
        assert catalog_name(wire, catalog) == entry["name"]
    assert catalog_name("export__all", catalog) == "export__all"     # not in the catalog


def test_wire_names_refuse_collisions_and_unsendable_names():
    with pytest.raises(ProviderError, match="'a.b' and 'a__b' would both reach the model "
                                            "as 'a__b'"):
        wire_names([{"name": "a.b"}, {"name": "a__b"}])
    assert wire_names([{"name": "a.b"}, {"name": "a.b"}]) == ["a__b", "a__b"]
    with pytest.raises(ProviderError, match="catalog entry 'send money'"):
        wire_names([{"name": "send money"}])
    with pytest.raises(ProviderError, match="at most 64"):
        wire_names([{"name": "t." + "x" * 62}])
    assert wire_names([{"name": "x" * 64}]) == ["x" * 64]
