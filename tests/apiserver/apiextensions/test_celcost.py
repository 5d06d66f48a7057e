"""The static cost of x-kubernetes-validations rules and the CRD cost limits, after kube-apiserver v1.34.

The estimate cases are upstream's compilation_test.go TestCostEstimation cases that the model's CEL
subset can express, each under upstream's name, with the expected cost without size limits ("calc") and
with the limit set on every array, map and string of the generated schema ("set"), as upstream checks them.
"""

import pytest

from kubenotes.apiserver.apiextensions.celcost import (STATIC_ESTIMATED_COST_LIMIT, cost_error_message,
                                                       estimate_cost, rule_cost_errors, schema_decl)

COST_LIMIT = 100_000_000  # compilation_test.go's costLimit


def _prim(t):
    return {"type": "string", "x-kubernetes-int-or-string": True} if t == "int-or-string" else {"type": t}


def array(t):
    def gen(mx):
        s = {"type": "array", "items": _prim(t)}
        return s if mx is None else {**s, "maxItems": mx}
    return gen


def array_of_arrays(t):
    def gen(mx):
        inner = {"type": "array", "items": _prim(t)}
        s = {"type": "array", "items": inner if mx is None else {**inner, "maxItems": mx}}
        return s if mx is None else {**s, "maxItems": mx}
    return gen


def _obj():
    return {"type": "object", "required": ["required"],
            "properties": {"required": {"type": "string"}, "optional": {"type": "string"}}}


def object_array(mx):
    s = {"type": "array", "items": _obj()}
    return s if mx is None else {**s, "maxItems": mx}


def map_array(t):
    def gen(mx):
        s = {"type": "array", "items": {"type": "object", "additionalProperties": _prim(t)}}
        return s if mx is None else {**s, "maxItems": mx}
    return gen


def map_of(item):
    def gen(mx):
        s = {"type": "object", "additionalProperties": item}
        return s if mx is None else {**s, "maxProperties": mx}
    return gen


def string(mx):
    return {"type": "string"} if mx is None else {"type": "string", "maxLength": mx}


def nested_spec(mx):  # genNestedSpecWithRule
    item = {"type": "string"} if mx is None else {"type": "string", "maxLength": mx}
    s = {"type": "object", "additionalProperties": item}
    return s if mx is None else {**s, "maxProperties": mx}


def all_max_nested(mx):  # genAllMaxNestedSpecWithRootRule
    inner = _obj() if mx is None else {**_obj(), "maxProperties": mx}
    m = {"type": "object", "additionalProperties": inner}
    m = m if mx is None else {**m, "maxProperties": mx}
    s = {"type": "array", "items": m}
    return s if mx is None else {**s, "maxItems": mx}


def one_max_nested(mx):  # genOneMaxNestedSpecWithRootRule
    m = {"type": "object", "additionalProperties": _obj()}
    m = m if mx is None else {**m, "maxProperties": mx}
    return {"type": "array", "items": m}


def enum(*values):
    def gen(mx):
        s = {"type": "string", "enum": list(values)}
        return s if mx is None else {**s, "maxLength": mx}
    return gen


# (name, schema generator, rule, calc cost or None, calc-exceeds, set max, set cost); upstream's numbers
CASES = [
    ("number array with all", array("number"), "self.all(x, true)", 4718591, None, 10, 32),
    ("string array with all", array("string"), "self.all(x, true)", 3145727, None, 20, 62),
    ("boolean array with all", array("boolean"), "self.all(x, true)", 1887437, None, 5, 17),
    ("array of number arrays with all", array_of_arrays("number"), "self.all(x, true)", 3145727, None, 100, 302),
    ("array of objects with all", object_array, "self.all(x, true)", 555128, None, 50, 152),
    ("map of numbers with all", map_of({"type": "number"}), "self.all(x, true)", 1348169, None, 10, 32),
    ("map of strings with all", map_of({"type": "string"}), "self.all(x, true)", 1179647, None, 3, 11),
    ("map of booleans with all", map_of({"type": "boolean"}), "self.all(x, true)", 943718, None, 100, 302),
    ("string with contains", string, "self.contains('test')", 314574, None, 10, 5),
    ("string with startsWith", string, "self.startsWith('test')", 2, None, 15, 2),
    ("string with endsWith", string, "self.endsWith('test')", 2, None, 30, 2),
    ("concat string", string, 'size(self + "hello") > size("hello")', 314578, None, 4, 7),
    ("index of array with numbers", array("number"), "self[1] == 0.0", 2, None, 5000, 2),
    ("index of array with strings", array("string"), "self[1] == self[1]", 314577, None, 8, 314577),
    ("O(n^2) loop with numbers", array("number"), "self.all(x, self.all(y, true))", None, COST_LIMIT, 10, 352),
    ("O(n^3) loop with numbers", array("number"), "self.all(x, self.all(y, self.all(z, true)))", None, COST_LIMIT,
     10, 3552),
    ("regex matches simple", string, 'self.matches("x")', 314574, None, 50, 22),
    ("regex matches empty string", string, '"".matches("(((((((((())))))))))[0-9]")', 7, None, 10, 7),
    ("regex matches empty regex", string, 'self.matches("")', 1, None, 100, 1),
    ("map of strings with value length", nested_spec, "self.all(x, x.contains(self[x]))", 2752507, None, 10, 72),
    ("set array maxLength to zero", array("number"), "self[3] == 0.0", 2, None, 0, 2),
    ("set map maxLength to zero", map_of({"type": "number"}), 'self["x"] == 0.0', 2, None, 0, 2),
    ("set string maxLength to zero", string, 'self == "x"', 2, None, 0, 1),
    ("set maxLength greater than estimated maxLength", array("number"), "self.all(x, x == 0.0)", 6291454, None,
     3 * 1024 * 2048, 25165826),
    ("nested types with root rule with all supporting maxLength", all_max_nested,
     'self.all(x, x["y"].required == "z")', 7340027, None, 10, 72),
    ("nested types with root rule with one supporting maxLength", one_max_nested,
     'self.all(x, x["y"].required == "z")', 7340027, None, 10, 7340027),
    ("int-or-string array with all", array("int-or-string"), "self.all(x, true)", 4718591, None, 10, 32),
    ("index of array with int-or-strings", array("int-or-string"), "self[0] == 5", 3, None, 10, 3),
    ("index of array with booleans", array("boolean"), "self[0] == false", 2, None, 25, 2),
    ("index of array of objects", object_array, "self[0] == null", 2, None, 422, 2),
    ("index of array of array of numnbers", array_of_arrays("number"), "self[0][0] == -1.0", 3, None, 51, 3),
    ("array of number maps with all", map_array("number"), "self.all(x, x.y == 25.2)", 6291452, None, 12, 74),
    ("index of array of number maps", map_array("number"), "self[0].x > 2.0", 4, None, 3000, 4),
    ("map of int-or-strings with all", map_of(_prim("int-or-string")), "self.all(x, true)", 1348169, None, 15, 47),
    ("map of objects with all", map_of(_obj()), "self.all(x, true)", 428963, None, 20, 62),
    ("map of number maps with all", map_of({"type": "object", "additionalProperties": {"type": "number"}}),
     "self.all(x, true)", 1179647, None, 10, 32),
    ("map of number arrays with all", map_of({"type": "array", "items": {"type": "number"}}),
     "self.all(x, true)", 1179647, None, 25, 77),
    ("extended library lowerAscii", string, "self.lowerAscii() == 'lower!'", 314575, None, 10, 6),
    ("check cost of size call", map_of({"type": "integer"}), "oldSelf.size() == self.size()", 5, None, 10, 5),
    ("enums with maxLength equals to the longest possible value", enum("A", "B", "C", "LongValue"),
     "self.contains('A')", 2, None, 1000, 401),
]


@pytest.mark.parametrize("name,gen,rule,calc,exceeds,set_max,set_cost", CASES, ids=[c[0] for c in CASES])
def test_upstream_cost_estimation(name, gen, rule, calc, exceeds, set_max, set_cost):
    got = estimate_cost(rule, schema_decl(gen(None)))
    if calc is not None:
        assert got == calc
    if exceeds is not None:
        assert got >= exceeds
    assert estimate_cost(rule, schema_decl(gen(set_max))) == set_cost


def test_other_macros_scale_with_the_list_size():
    small = schema_decl({"type": "array", "maxItems": 10, "items": {"type": "integer"}})
    # exists: 2 + n * (3 + (1 + body)); exists_one: 2 + n * (body + 2); map: 12 + n * (12 + body);
    # filter: 12 + n * (13 + body); body x > 1 costs 2
    assert estimate_cost("self.exists(x, x > 1)", small) == 2 + 10 * 6
    assert estimate_cost("self.exists_one(x, x > 1)", small) == 3 + 10 * 4
    assert estimate_cost("self.map(x, x > 1)", small) == 12 + 10 * 14
    assert estimate_cost("self.filter(x, x > 1)", small) == 12 + 10 * 15


def test_string_enum_bounds_the_length():
    d = schema_decl({"type": "string", "enum": ["a", "abcd"]})
    assert d.max_elements == 4


def _crd_schema(items, rule):
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": {"tags": {
        **items, "x-kubernetes-validations": [{"rule": rule}]}}}}}


def test_per_rule_limit_refused_with_upstreams_message_and_path():
    s = _crd_schema({"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 10_000},
                    "self.all(x, self.all(y, x != y))")
    errs = rule_cost_errors(s, "spec.versions[0].schema.openAPIV3Schema")
    assert [str(e) for e in errs][0] == (
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule: "
        "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or "
        "adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)")


def test_bounded_rule_accepted():
    s = _crd_schema({"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 100},
                    "self.all(x, x.contains('gpu'))")
    assert rule_cost_errors(s, "spec.versions[0].schema.openAPIV3Schema") == []


def test_cardinality_multiplies_a_rule_under_a_list():
    item = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 1000,
            "x-kubernetes-validations": [{"rule": "self.contains('x')"}]}}}  # 400 + 1 per evaluation
    ok = {"type": "object", "properties": {"l": {"type": "array", "maxItems": 20_000, "items": item}}}
    assert rule_cost_errors(ok, "s") == []
    big = {"type": "object", "properties": {"l": {"type": "array", "maxItems": 30_000, "items": item}}}
    errs = rule_cost_errors(big, "s")
    # 401 * 30000 = 12,030,000: 1.203x the per-rule limit, formatted as Go's %f
    assert "estimated rule cost exceeds budget by factor of 1.203000x" in str(errs[0])
    assert str(errs[0]).startswith("s.properties[l].items.properties[name].x-kubernetes-validations[0].rule: ")


def test_total_over_the_crd_limit_names_the_four_dearest_rules():
    rules = [{"rule": f"self.all(x, x.contains('{i}'))"} for i in range(13)]
    # each rule: 2 + 4000 * (3 + 1 + 2000 * 1) = 8,016,002, under the per-rule limit; 13 of them: 104,208,026
    s = {"type": "object", "properties": {"a": {"type": "array", "maxItems": 4000,
         "items": {"type": "string", "maxLength": 5000}, "x-kubernetes-validations": rules}}}
    errs = [str(e) for e in rule_cost_errors(s, "spec.versions[0].schema.openAPIV3Schema")]
    contributed = [e for e in errs if "contributed to estimated rule cost total" in e]
    assert len(contributed) == 4 and not any("estimated rule cost exceeds" in e for e in errs)
    assert errs[-1].startswith("spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations "
                               "estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor "
                               "of 1.042080x ")


def test_cost_error_message_factor_formats():
    assert "factor of 1.500000x" not in cost_error_message("c", 15_000_000, STATIC_ESTIMATED_COST_LIMIT)
    assert "factor of 1.5x" in cost_error_message("c", 15_000_000, STATIC_ESTIMATED_COST_LIMIT)
    assert "factor of 1.100000x" in cost_error_message("c", 11_000_000, STATIC_ESTIMATED_COST_LIMIT)
    assert "factor of more than 100x" in cost_error_message("c", 10 ** 12, STATIC_ESTIMATED_COST_LIMIT)


def test_a_crd_over_the_cost_limit_is_refused_by_the_api_server_and_nothing_is_stored():
    from kubenotes.apiserver import validation
    from kubenotes.apiserver.server import APIServer
    from kubenotes.apiserver.status import ApiError
    api = APIServer(validator=validation)
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "gadgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema":
                                  _crd_schema({"type": "array", "items": {"type": "string"}},
                                              "self.all(x, x.contains('gpu'))")}}]}}
    with pytest.raises(ApiError) as e:
        api.client().create("customresourcedefinitions", crd)
    msg = str(e.value)
    rule = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule"
    assert msg.startswith('CustomResourceDefinition.apiextensions.k8s.io "gadgets.example.com" is invalid: [')
    assert f"{rule}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x" in msg
    assert f"{rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire " \
           "OpenAPIv3 schema" in msg
    assert ("spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost "
            "total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x") in msg
    assert api.client().list("customresourcedefinitions")["items"] == []
    items = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["tags"]
    items["maxItems"], items["items"]["maxLength"] = 100, 64
    assert api.client().create("customresourcedefinitions", crd)["metadata"]["name"] == "gadgets.example.com"


# Runtime cost: counted while the rules run on a custom resource (cel-go's CostTracker), limited per call
# (PerCallLimit 1,000,000) and per request (RuntimeCELCostBudget 10,000,000), with upstream's errors.

def test_runtime_cost_of_a_worst_case_object_equals_the_static_estimate():
    from kubenotes.apiserver.admission.cel import CostTracker, evaluate
    cases = [("self.all(x, true)", {"type": "array", "maxItems": 10, "items": {"type": "number"}}, [1.5] * 10),
             ("self.exists(x, x > 100)", {"type": "array", "maxItems": 7, "items": {"type": "integer"}}, [1] * 7),
             ("self.contains('test')", {"type": "string", "maxLength": 10}, "a" * 40),
             ("self.all(x, self.all(y, true))", {"type": "array", "maxItems": 10, "items": {"type": "number"}},
              [0.0] * 10)]
    for rule, schema, value in cases:
        t = CostTracker()
        evaluate(rule, {"self": value}, t)
        assert t.actual == estimate_cost(rule, schema_decl(schema)), rule


def test_a_rule_over_the_per_call_limit_stops_validation_with_upstreams_message():
    from kubenotes.apiserver.apiextensions.celvalidation import validate_rules
    schema = {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-validations": [
        {"rule": "self.l.all(x, self.l.all(y, x.contains(y)))", "message": "no"},
        {"rule": "false"}], "properties": {"l": {"type": "array", "items": {"type": "string"}}}}}}
    errs = [str(e) for e in validate_rules(schema, {"spec": {"l": ["a" * 10_000, "b" * 10_000]}})]
    assert errs == ["spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further "
                    "validation rules will be run due to call cost exceeds limit for rule: no"]


def test_the_request_budget_runs_out_across_list_items():
    from kubenotes.apiserver.apiextensions.celvalidation import validate_rules
    # each item's rule costs 900 * 900 + 2 = 810,002: twelve fit in 10,000,000, the thirteenth does not
    schema = {"type": "object", "properties": {"l": {"type": "array", "items": {
        "type": "string", "x-kubernetes-validations": [{"rule": "self.contains(self)"}]}}}}
    errs = [str(e) for e in validate_rules(schema, {"l": ["x" * 9000] * 20})]
    assert errs == ['l[12]: Invalid value: "string": validation failed due to running out of cost budget, no further '
                    'validation rules will be run']
    assert validate_rules(schema, {"l": ["x" * 9000] * 12}) == []


def test_a_message_expression_is_costed_too():
    s = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "l": {"type": "array", "items": {"type": "string"}}},
        "x-kubernetes-validations": [{"rule": "size(self.l) < 3",
                                      "messageExpression": "self.l.all(x, self.l.all(y, x == y)) ? 'a' : 'b'"}]}}}
    errs = [str(e) for e in rule_cost_errors(s, "o")]
    assert errs[0] == ("o.properties[spec].x-kubernetes-validations[0].messageExpression: Forbidden: estimated "
                       "messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, "
                       "or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)")


# Upstream's celcoststability_test.go TestCelCostStability: the actual cost of rules on fixed objects, for the
# cases the model's CEL subset can express (no type(), bytes, durations, timestamps, string library beyond
# lowerAscii/upperAscii, no error-absorbing all/exists, no three-argument map).
_ARRAY = {"array": [1, 1, 2, 2, 3, 3, 4, 5]}
_SET = {"set": [1, 2, 3, 4, 5]}
_MAP = {"val": {"b": 1, "d": 2}}
_LISTMAP = {"listMap": [{"k": "a1", "v": "b1"}, {"k": "a2", "v": "b2"}, {"k": "a3", "v": "b3", "v2": "z"}]}
_UNICODE = {"val1": "Rook takes 👑", "val2": "Rook takes 👑"}
_META = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo", "generateName": "pickItForMe",
                                                         "namespace": "xyz"}}
STABILITY = [
    ("integers", {"val1": 2 ** 63 - 1, "val3": 2 ** 31 - 1, "val6": 2 ** 63 - 1}, {
        "self.val1 == self.val6": 5, "self.val3 + 1 == 2147483647 + 1": 5}),
    ("numeric comparisons", {"val1": 5, "val4": 10.0}, {
        "double(self.val1) < self.val4": 6, "self.val1 < int(self.val4)": 6, "double(self.val1) < 10.0": 4}),
    ("unicode strings", _UNICODE, {
        "self.val1.startsWith('Rook')": 4, "!self.val1.startsWith('knight')": 5, "self.val1.matches('^[^0-9]*$')": 8,
        "!self.val1.matches('^[0-9]*$')": 7, "size(self.val1) == 12": 4,
        "self.val1.upperAscii() == 'ROOK TAKES 👑'": 6, "self.val1.lowerAscii() == 'rook takes 👑'": 6}),
    ("booleans", {"val1": True, "val4": False}, {"self.val1 != self.val4": 5}),
    ("enums", {"enumStr": "Pending"}, {"self.enumStr == 'Pending'": 3}),
    ("lists", {"val1": [1, 2, 3], "val2": [1, 2, 3]}, {
        "1 in self.val1": 5, "self.val2[0] in self.val1": 8, "!(0 in self.val1)": 6,
        "self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]": 6, "self.val1 + [4, 5] == [1, 2, 3, 4, 5]": 4}),
    ("maps", {"val1": {"k1": "a", "k2": "b"}, "val2": {"k2": "b", "k1": "a"}}, {
        "self.val1 == self.val2": 5, "'k1' in self.val1": 3, "!('k3' in self.val1)": 4,
        "self.val1 == {'k1': 'a', 'k2': 'b'}": 3}),
    ("objects", {"objs": [{"f1": "a", "f2": "b"}, {"f1": "a", "f2": "b"}]}, {"self.objs[0] == self.objs[1]": 7}),
    ("object access", {"a": {"b": 1, "d": None}, "a1": {"b1": {"c1": 4}}, "a3": {}}, {
        "has(self.a.b)": 2, "has(self.a1.b1.c1)": 3, "!(has(self.a1.d2) && has(self.a1.d2.e2))": 3,
        "!has(self.a1.d2)": 3}),
    ("map access", _MAP, {
        "!('a' in self.val)": 4, "'b' in self.val": 3, "!('c' in self.val)": 4, "'d' in self.val": 3,
        "!has(self.val.a)": 3, "has(self.val.b)": 2, "!has(self.val.c)": 3, "has(self.val.d)": 2,
        "self.val.all(k, self.val[k] > 0)": 17, "self.val.exists_one(k, self.val[k] == 2)": 14,
        "!self.val.exists_one(k, self.val[k] > 0)": 17, "size(self.val) == 2": 4,
        "size(self.val.filter(k, self.val[k] > 1)) == 1": 26}),
    ("listMap access", _LISTMAP, {
        "has(self.listMap[0].v)": 3, "self.listMap.all(m, m.k.startsWith('a'))": 21,
        "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')": 21, "self.listMap.exists(m, m.k.endsWith('1'))": 13,
        "self.listMap.exists_one(m, m.k == 'a3')": 15, "!self.listMap.all(m, m.k.endsWith('1'))": 18,
        "!self.listMap.exists(m, m.v == 'x')": 25, "!self.listMap.exists_one(m, m.k.startsWith('a'))": 20,
        "size(self.listMap.filter(m, m.k == 'a1')) == 1": 27,
        "self.listMap.exists(m, m.k == 'a1' && m.v == 'b1')": 16,
        "self.listMap.map(m, m.v).exists(v, v == 'b1')": 55,
        "self.listMap.exists(m, has(m.v2) && m.v2 == 'z')": 21,
        "!self.listMap.all(m, has(m.v2) && m.v2 != 'z')": 10,
        "self.listMap.exists_one(m, has(m.v2) && m.v2 == 'z')": 12,
        "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').size() == 1": 24,
        "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').map(m, m.v2).size() == 1": 39}),
    ("list access", _ARRAY, {
        "2 in self.array": 10, "self.array.all(e, e > 0)": 43, "self.array.exists(e, e > 2)": 36,
        "self.array.exists_one(e, e > 4)": 22, "!self.array.all(e, e < 2)": 21, "!self.array.exists(e, e < 0)": 52,
        "self.array.all(e, e < 100)": 43, "size(self.array.filter(e, e%2 == 0)) == 3": 68,
        "self.array.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)": 194, "size(self.array) == 8": 4}),
    ("listSet access", _SET, {
        "3 in self.set": 7, "self.set.all(e, e > 0)": 28, "self.set.exists(e, e > 3)": 30,
        "self.set.exists_one(e, e == 3)": 16, "!self.set.all(e, e < 3)": 21, "!self.set.exists(e, e < 0)": 34,
        "!self.set.exists_one(e, e > 3)": 19, "self.set.all(e, e < 10)": 28,
        "size(self.set.filter(e, e%2 == 0)) == 2": 46,
        "self.set.map(e, e * 20).filter(e, e > 50).exists_one(e, e == 60)": 133, "size(self.set) == 5": 4}),
    ("typemeta and objectmeta access specified", _META, {
        "self.kind == 'Pod'": 3, "self.apiVersion == 'v1'": 3, "self.metadata.name == 'foo'": 4,
        "self.metadata.generateName == 'pickItForMe'": 5}),
    ("string in intOrString", {"something": "25%"}, {
        "self.something == '25%'": 3, "self.something != 1": 3, "self.something == 1 || self.something == '25%'": 6,
        "self.something == '25%' || self.something == 1": 3, "self.something != ['anything']": 3}),
    ("int in intOrString", {"something": 1}, {
        "self.something == 1": 3, "self.something != 'some string'": 3,
        "self.something == 1 || self.something == '25%'": 3, "self.something == '25%' || self.something == 1": 6,
        "self.something != ['anything']": 3}),
]


@pytest.mark.parametrize("name,obj,costs", STABILITY, ids=[c[0] for c in STABILITY])
def test_upstream_cel_cost_stability(name, obj, costs):
    from kubenotes.apiserver.admission.cel import CostTracker, evaluate
    got = {}
    for rule in costs:
        t = CostTracker()
        evaluate(rule, {"self": obj}, t)
        got[rule] = t.actual
    assert got == costs


def test_an_update_leaving_a_schema_unchanged_skips_the_per_rule_limit():
    from kubenotes.apiserver.apiextensions.validation import validate_crd
    sch = _crd_schema({"type": "array", "maxItems": 2000, "items": {"type": "string", "maxLength": 5000}},
                      "self.all(x, x.contains('gpu'))")  # 2 + 2000 * (2 + 1 + 2001) = 4,008,002: under the limit
    crd = {"metadata": {"name": "gadgets.example.com"}, "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": sch}}]}}
    assert validate_crd(crd) == []
    import copy
    dear = copy.deepcopy(crd)
    dear["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["tags"][
        "maxItems"] = 6000  # 12,024,002
    assert [e.detail[:40] for e in validate_crd(dear)] == ["estimated rule cost exceeds budget by fa"]
    assert validate_crd(dear, dear) == []  # unchanged by the update
    assert [e.detail[:40] for e in validate_crd(dear, crd)] == ["estimated rule cost exceeds budget by fa"]
