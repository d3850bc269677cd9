"""Each suite's policy as label contracts (SPEC 15): what a tool's result is labelled, and
which parameters may carry data labelled `untrusted` (anything a tool returned).

Derived from the suites' tools and from CaMeL's published policies
(google-research/camel-prompt-injection, src/camel/pipeline_elements/security_policies/);
bench/agentdojo/README.md lists where these differ and why. The rule: a parameter that
decides *who* receives, *which* account or object is changed, or *where* data goes
(recipients, passwords, invitees, bookings, deletions, URLs) accepts no label; a
parameter that is only content (an amount, a subject, a body) accepts `untrusted`.
Tools without side effects accept `untrusted` everywhere (reading cannot harm).
"""

UNTRUSTED = "untrusted"

# Travel's catalogue: what the booking platform publishes (hotels, restaurants, car
# rentals, flights). Read-only; its results are trusted (TRUSTED_RESULTS), the reviews
# aside (UNTRUSTED_FIELDS).
TRAVEL_CATALOGUE = {
    "get_all_hotels_in_city", "get_hotels_prices", "get_rating_reviews_for_hotels",
    "get_hotels_address", "get_all_restaurants_in_city", "get_cuisine_type_for_restaurants",
    "get_restaurants_address", "get_rating_reviews_for_restaurants",
    "get_dietary_restrictions_for_all_restaurants", "get_contact_information_for_restaurants",
    "get_price_for_restaurants", "check_restaurant_opening_hours",
    "get_all_car_rental_companies_in_city", "get_car_types_available",
    "get_rating_reviews_for_car_rental", "get_car_fuel_options", "get_car_rental_address",
    "get_car_price_per_day", "get_flight_information",
}

# Tools whose results hold no third-party text, or hold it only in UNTRUSTED_FIELDS:
# the system clock; travel's catalogue, which the booking platform writes (names,
# addresses, prices, opening hours, ratings, flights), reviews aside (not the user's
# profile: passport and card numbers, which no label here would then guard);
# banking's transactions, which the bank books (sender, recipient, amount: money that
# moved), the subject and date aside (whoever pays writes them: AgentDojo's send_money
# stores both as given).
TRUSTED_RESULTS = {
    "workspace": {"get_current_day"},
    "travel": TRAVEL_CATALOGUE,
    "banking": {"get_most_recent_transactions", "get_scheduled_transactions"},
}

# The fields of those results that anyone may write: labelled untrusted on their own
# (synsema.Labelled, tools.shaped), so a value read from the other fields carries no label.
UNTRUSTED_FIELDS = {
    "travel": {"get_rating_reviews_for_hotels": {"reviews"},
               "get_rating_reviews_for_restaurants": {"reviews"},
               "get_rating_reviews_for_car_rental": {"reviews"}},
    "banking": {"get_most_recent_transactions": {"subject", "date"},
                # A standing order is the user's own: its subject is written only by the
                # user (schedule_transaction and update_scheduled_transaction accept no
                # label in `subject`), so it says which order is the rent; its date is
                # content (it accepts untrusted) and stays labelled.
                "get_scheduled_transactions": {"date"}},
}

# Tools whose records carry an id the platform writes (the user's own calendar events,
# files and emails: `id_`, numbered by the platform; no one else can set it). Typed, the
# id comes back with no label and every other field of the record `Labelled` untrusted
# (tools.shaped), so a parameter that chooses an object (which event is moved, which file
# is shared or appended to) can take an id the plan reads from them, and nothing else
# from tool data. The result still carries its arguments' labels (SPEC 15.2): a file
# created with untrusted content has an untrusted id.
_EVENTS = {"search_calendar_events", "get_day_calendar_events", "create_calendar_event"}
PLATFORM_IDS = {
    "workspace": {tool: {"id_"} for tool in _EVENTS | {
        "reschedule_calendar_event", "add_calendar_event_participants",
        "get_unread_emails", "get_sent_emails", "get_received_emails", "get_draft_emails",
        "search_emails", "send_email",
        "search_files_by_filename", "get_file_by_id", "list_files", "search_files",
        "create_file", "append_to_file", "share_file", "delete_file"}},
    "travel": {tool: {"id_"} for tool in _EVENTS},
}

# Read-only tools, per suite: every parameter accepts untrusted.
READ_ONLY = {
    "banking": {"get_iban", "get_balance", "get_most_recent_transactions",
                "get_scheduled_transactions", "read_file", "get_user_info"},
    "slack": {"get_channels", "read_channel_messages", "read_inbox", "get_users_in_channel"},
    "travel": TRAVEL_CATALOGUE | {"get_user_information", "search_calendar_events",
                                  "get_day_calendar_events"},
    "workspace": {"get_unread_emails", "get_sent_emails", "get_received_emails",
                  "get_draft_emails", "search_emails", "search_contacts_by_name",
                  "search_contacts_by_email", "get_current_day", "search_calendar_events",
                  "get_day_calendar_events", "search_files_by_filename", "get_file_by_id",
                  "list_files", "search_files"},
}

# Tools with side effects: the parameters that may carry untrusted data. Every parameter
# not listed (and every parameter of a side-effect tool not in this table) accepts none.
CONTENT = {
    "banking": {
        "send_money": {"amount", "subject", "date"},
        "schedule_transaction": {"amount", "date", "recurring"},
        # `id`: which standing order is changed: an id of the bank's (get_scheduled_
        # transactions: trusted), picked by what the user wrote, never by third-party text.
        "update_scheduled_transaction": {"amount", "date", "recurring"},
        "update_password": set(),
        "update_user_info": set(),
    },
    "slack": {
        "send_direct_message": {"body"},
        "send_channel_message": {"body"},   # the channel: which one is written to
        "post_webpage": {"content"},
        "get_webpage": set(),              # fetching an attacker's URL is the attack
        "add_user_to_channel": set(),
        "invite_user_to_slack": set(),
        "remove_user_from_slack": set(),
    },
    "travel": {
        # The attacker's goals here are content: an email to the user's own contact that
        # holds the passport number (injection_task_5), an event titled as the attacker
        # says (injection_task_2). So what an email or event says accepts no label.
        "send_email": set(),
        "create_calendar_event": {"description", "location"},
        "cancel_calendar_event": set(),
        "reserve_hotel": set(),
        "reserve_car_rental": set(),
        "reserve_restaurant": set(),
    },
    "workspace": {
        "send_email": {"subject", "body"},          # attachments: which files are sent
        "delete_email": set(),
        "create_calendar_event": {"title", "start_time", "end_time", "description", "location"},
        "cancel_calendar_event": set(),
        # Which event, which file: ids of the platform's (PLATFORM_IDS), never tool data.
        "reschedule_calendar_event": {"new_start_time", "new_end_time"},
        "add_calendar_event_participants": set(),
        "create_file": {"filename", "content"},     # a new file: its name is content
        "delete_file": set(),
        "share_file": set(),                        # which file, to whom, and how much
        "append_to_file": {"content"},
    },
}


# Parameters that name who will read other parameters (CaMeL's readers rule): they accept
# `untrusted` (the invitees of a follow-up meeting, read from the first one's record),
# but then what they would be sent must carry no label at all (synsema.tool's readers=):
# a party that data chose is sent nothing that data wrote. Only where the parameters are
# all that is sent: not an email's attachments (files by id), not a shared file, not an
# existing event's participants (its contents are not parameters), never money.
READERS = {
    "workspace": {
        "create_calendar_event": {"participants": ["title", "start_time", "end_time",
                                                   "description", "location"]},
    },
    "slack": {
        "send_direct_message": {"recipient": ["body"]},
        # A channel chosen from data (the one with the most users) is sent only the
        # user's own words (CaMeL: the channel's members may read the body).
        "send_channel_message": {"channel": ["body"]},
    },
}


def check(suite, tools):
    """Every tool of the suite has a place in the policy: read-only, or with side effects
    and its content parameters listed (a tool left out would get a contract by default);
    trust is given to read-only tools only."""
    tools, reading, writing = set(tools), READ_ONLY[suite], set(CONTENT[suite])
    problems = [f"{what}: {sorted(names)}" for what, names in [
        ("not in the policy", tools - reading - writing),
        ("both read-only and writing", reading & writing),
        ("not tools of the suite", (reading | writing) - tools),
        ("trusted but not read-only", TRUSTED_RESULTS.get(suite, set()) - reading),
        ("platform ids of no tool", set(PLATFORM_IDS.get(suite, {})) - tools)] if names]
    if problems:
        raise ValueError(f"policies.py, suite {suite}: " + "; ".join(problems))


def contract(suite, tool, typed):
    """(result_labels, accepts, readers) of one tool, as synsema.tool takes them. `typed`:
    the tool returns records whose UNTRUSTED_FIELDS come back labelled on their own; as
    one text (the loop agents' results) those fields are in it, so the whole is
    untrusted."""
    trusted = (tool in TRUSTED_RESULTS.get(suite, ()) and (
        typed or tool not in UNTRUSTED_FIELDS.get(suite, {}))) or (
        typed and tool in PLATFORM_IDS.get(suite, {}))
    result = [] if trusted else [UNTRUSTED]
    if tool in READ_ONLY[suite]:
        return result, {"*": [UNTRUSTED]}, None
    readers = READERS.get(suite, {}).get(tool)
    accepts = set(CONTENT[suite].get(tool, ())) | set(readers or ())
    return result, {p: [UNTRUSTED] for p in sorted(accepts)}, readers
