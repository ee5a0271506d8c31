"""Synthetic worlds for bench/quality.py, built deterministically from a seed
(no network, no language model).

A kind's *truth* lists its values for the four inheritable labels; a world
writes all of them but one label (kept out on purpose: a question about it has
no answer in the store). A new thing is known only by "X is a K" (sometimes two
kinds, sometimes a kind of a kind) and, for some things, one personal fact on a
label no rule covers; its other personal facts are true but never written.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

INHERITABLE = ("used_for", "has", "needs", "made_of")
RULELESS = ("likes", "hobby", "pet")


def _table(text: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """`name | parent | used_for a, b | has … | needs … | made_of …` per line."""
    rows = {}
    for line in text.strip().splitlines():
        name, parent, *cells = [cell.strip() for cell in line.split("|")]
        rows[name] = {"parent": parent,
                      **{label: tuple(v.strip() for v in cell.split(",")) for label, cell in zip(INHERITABLE, cells)}}
    return rows


# Kinds of kinds (J): a world with a two-deep chain writes "K is_a J" and J's facts.
PARENTS = _table("""
appliance | - | household chores | power cord, switch | electricity | plastic
vehicle | - | transport | wheels, seats | fuel | metal
instrument | - | making music | strings | tuning | wood
tool | - | repairs | grip | a strong hand | hardened steel
furniture | - | furnishing a room | legs | floor space | timber
container | - | storing things | opening | a lid to seal | glass
garment | - | keeping warm | seams | washing | fabric
plant | - | decoration | leaves | sunlight | plant cells
toy | - | play | bright colours | a child | plastic
gadget | - | communication | a screen | charging | circuit boards
sports gear | - | exercise | padding | practice | synthetic fibre
kitchenware | - | cooking | a handle | cleaning | cast iron
""")

KINDS = _table("""
kettle | appliance | boiling water, making tea | spout, lid | water | steel
toaster | appliance | toasting bread | slots, crumb tray | sliced bread | chrome
vacuum cleaner | appliance | cleaning floors | dust bag, nozzle | emptying | plastic
washing machine | appliance | washing clothes | drum, door | detergent, water | enamelled steel
refrigerator | appliance | keeping food cold | shelves, freezer compartment | coolant | steel
bicycle | vehicle | commuting, cycling | pedals, chain, handlebars | air in the tyres | aluminium
motorcycle | vehicle | riding, touring | engine, two wheels | petrol, a helmet | steel
bus | vehicle | public transport | many seats, doors | diesel, a driver | steel
sailboat | vehicle | sailing | mast, sail, hull | wind | fibreglass
tractor | vehicle | ploughing fields | big rear wheels | diesel | iron
violin | instrument | playing classical music | four strings, bow | rosin | spruce, maple
piano | instrument | playing chords | keys, pedals | regular tuning | wood, felt
trumpet | instrument | playing fanfares | valves, mouthpiece | breath | brass
drum | instrument | keeping rhythm | drumhead | sticks | wood, skin
flute | instrument | playing melodies | keys, embouchure hole | breath | silver
hammer | tool | driving nails | head, claw | nails | steel, wood
screwdriver | tool | turning screws | tip, shaft | screws | steel
saw | tool | cutting wood | teeth, blade | sharpening | steel
wrench | tool | tightening bolts | jaws | bolts | chrome vanadium
drill | tool | boring holes | chuck, trigger | drill bits, a battery | plastic, steel
armchair | furniture | sitting | armrests, cushion | upholstery care | wood, leather
bookshelf | furniture | holding books | shelves | a wall to lean on | pine
bed | furniture | sleeping | mattress, headboard | bedding | oak
desk | furniture | working, writing | drawers | a chair | oak
wardrobe | furniture | storing clothes | hangers, doors | space | walnut
jar | container | preserving food | screw lid | airtight seal | glass
backpack | container | carrying books | straps, zip | shoulders | nylon
suitcase | container | travelling | wheels, extendable handle | a lock | polycarbonate
bucket | container | carrying water | handle | a tap | galvanised steel
basket | container | carrying fruit | woven sides | care when full | wicker
coat | garment | staying dry | buttons, pockets | a hanger | wool
scarf | garment | warming the neck | fringe | gentle washing | cashmere
boot | garment | hiking | laces, sole | polish | leather
glove | garment | protecting hands | fingers | a pair | leather, lining
hat | garment | shading the face | brim | a head | felt, straw
fern | plant | shady corners | fronds | humidity | plant cells
cactus | plant | dry windowsills | spines | little water | succulent tissue
sunflower | plant | seed harvest | large yellow head | full sun | stalk fibres
bonsai | plant | meditation | tiny trunk | pruning | living wood
orchid | plant | gifts | aerial roots, blooms | indirect light | plant cells
kite | toy | flying on windy days | tail, string | wind | paper, bamboo
yo-yo | toy | tricks | axle, string | a flick of the wrist | wood
teddy bear | toy | cuddling | button eyes | hugs | plush
jigsaw puzzle | toy | patience | interlocking pieces | a table | cardboard
rubik's cube | toy | solving | coloured stickers, 27 cubies | algorithms | plastic
smartphone | gadget | calling, texting | touchscreen, camera | a sim card | glass, aluminium
laptop | gadget | office work | keyboard, trackpad | a charger | aluminium
smartwatch | gadget | tracking steps | strap, heart rate sensor | a phone to pair | titanium
e-reader | gadget | reading books | e-ink display | ebooks | plastic
headphones | gadget | listening to music | ear cups, headband | a bluetooth source | plastic, foam
tennis racket | sports gear | playing tennis | string bed, grip tape | tennis balls | graphite
skateboard | sports gear | skating | deck, trucks | smooth pavement | maple plywood
helmet | sports gear | protecting the head | chin strap | the right size | polystyrene
yoga mat | sports gear | stretching | non-slip surface | a flat floor | rubber
football | sports gear | playing football | panels, valve | a pump | leather
frying pan | kitchenware | frying eggs | non-stick coating | oil | aluminium
wok | kitchenware | stir-frying | sloped sides | high heat | carbon steel
teapot | kitchenware | brewing tea | spout, lid | tea leaves | porcelain
saucepan | kitchenware | boiling pasta | lid | a hob | stainless steel
whisk | kitchenware | beating eggs | wire loops | a bowl | stainless steel
""")

THING_NAMES = (
    "Rusty", "Bluebell", "Old Faithful", "Biscuit", "Comet", "Juniper", "Pebble", "Marigold", "Thunder",
    "Clementine", "Sprout", "Pip", "Nimbus", "Hazel", "Zephyr", "Tango", "Moss", "Saffron", "Dolly",
    "Orbit", "Fennel", "Kiwi", "Bramble", "Echo", "Ginger", "Noodle", "Pippin", "Quill", "Sable", "Tinker",
    "Waffle", "Yarrow", "Ziggy", "Button", "Cricket", "Dusty", "Ember", "Fizz", "Goose", "Honey",
)

PERSONAL = {
    "likes": ("sunny windowsills", "being polished", "quiet evenings", "long journeys", "company",
              "the smell of rain", "jazz on the radio", "fresh paint"),
    "hobby": ("collecting stickers", "gathering dust", "watching the garden", "humming", "travelling",
              "squeaking at night", "posing for photos", "waiting patiently"),
    "pet": ("a cat called Miso", "a dog called Rex", "two goldfish", "a parrot called Kiwi", "a gecko",
            "a rabbit called Bun", "three hens", "a hamster called Dot"),
}
# A thing's own value on an inheritable label, next to what it inherits.
OWN = {"has": ("a dent", "a name sticker", "a scratch on one side", "a repair patch"),
       "used_for": ("decoration on the shelf", "a birthday present", "a film prop", "a school project")}


@dataclass
class Thing:
    name: str
    kinds: list[str]                       # written "X is_a K"
    closure: list[str]                     # every kind it is: direct kinds, then their parents
    personal: dict[str, str]               # true values of the rule-less labels
    written_personal: str | None           # the one rule-less label written, if any
    own: tuple[str, str] | None = None     # (label, value) of its own on an inheritable label


@dataclass
class World:
    index: int
    kinds: dict[str, dict[str, tuple[str, ...]]]   # truth of every kind in the world (and parent, if any)
    withheld: dict[str, str]                       # kind → the inheritable label kept out for it
    parent_of: dict[str, str] = field(default_factory=dict)  # written "K is_a J"
    things: list[Thing] = field(default_factory=list)
    multi_kind: bool = False
    chain: bool = False

    def written(self, kind: str) -> dict[str, tuple[str, ...]]:
        truth = self.kinds[kind]
        return {label: truth[label] for label in INHERITABLE if label != self.withheld[kind]}

    def inherited(self, thing: Thing) -> dict[str, set[str]]:
        """What a thing inherits from what was written: label → values."""
        out: dict[str, set[str]] = {label: set() for label in INHERITABLE}
        for kind in thing.closure:
            for label, values in self.written(kind).items():
                out[label].update(values)
        return out


def build_worlds(n: int, seed: int, *, p_multi: float = 0.2, p_chain: float = 0.25, p_own: float = 0.2,
                 kinds_per_world: tuple[int, int] = (4, 6), things_per_world: tuple[int, int] = (2, 4)) -> list[World]:
    rng = random.Random(seed)
    kind_names = sorted(KINDS)
    worlds = []
    for index in range(n):
        chosen = rng.sample(kind_names, rng.randint(*kinds_per_world))
        world = World(index, {k: {label: KINDS[k][label] for label in INHERITABLE} for k in chosen},
                      {k: rng.choice(INHERITABLE) for k in chosen})
        world.chain = rng.random() < p_chain
        world.multi_kind = rng.random() < p_multi
        names = rng.sample(THING_NAMES, rng.randint(*things_per_world))
        for i, name in enumerate(names):
            kinds = [chosen[i % len(chosen)]]
            if i == 0 and world.multi_kind:
                kinds.append(chosen[(i + 1) % len(chosen)])
            personal = {label: rng.choice(values) for label, values in PERSONAL.items()}
            written = rng.choice([*RULELESS, None])
            world.things.append(Thing(name, kinds, list(kinds), personal, written))
        if world.chain:
            # One kind of the world is a kind of a kind; the parent keeps out the same label as the child,
            # so that label stays unknowable for things of that kind.
            child = world.things[-1].kinds[0]
            parent = KINDS[child]["parent"]
            if parent not in world.kinds:
                world.kinds[parent] = {label: PARENTS[parent][label] for label in INHERITABLE}
                world.withheld[parent] = world.withheld[child]
                world.parent_of[child] = parent
                for thing in world.things:
                    if child in thing.kinds:
                        thing.closure.append(parent)
            else:
                world.chain = False
        for thing in world.things:
            if rng.random() < p_own:
                labels = [label for label in OWN if world.inherited(thing)[label]]
                if labels:
                    label = rng.choice(labels)
                    thing.own = (label, rng.choice(OWN[label]))
        worlds.append(world)
    return worlds
