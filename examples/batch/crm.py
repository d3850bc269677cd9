"""The customer database of examples/batch/triage.syn, as a host tool (SPEC 15):
`--tools crm:crm` registers crm.plan. A customer id it does not know fails the call, so
some tickets of tickets.jsonl end with status "error" while the rest go on."""

import synsema

crm = synsema.Toolbox("crm")

PLANS = {f"C{n:03d}": ("gold" if n % 7 == 0 else "basic") for n in range(1, 200)}


@crm.tool(accepts={"customer": ["customers"]})
def plan(customer: str) -> str:
    """The plan a customer pays for: gold or basic.

    :param customer: the customer id, C001 to C199
    """
    return PLANS[customer]          # KeyError for an unknown id: the item's error
