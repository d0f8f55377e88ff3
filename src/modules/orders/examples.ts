import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'orders.allocateOrder': {
    "input": {
      "id": "so_01m8getzp7djbzrqfgmznhj490",
      "strategy": "fifo"
    },
    "output": {
      "order": {
        "id": "so_01m8getzp7djbzrqfgmznhj490",
        "orderNumber": "SO-2611-6",
        "customerId": "cus_01m8getzjp4wp6d414ysz5zhe0",
        "customer": {
          "id": "cus_01m8getzjp4wp6d414ysz5zhe0",
          "code": "C-2611-5",
          "name": "Café Nord"
        },
        "channel": "direct",
        "externalOrderId": null,
        "currency": "EUR",
        "requestedShipAt": null,
        "state": "allocated",
        "lineCount": 1,
        "totalKg": "12.000",
        "totalAmount": "240.0000",
        "allocatedKg": "12.000",
        "fulfilledKg": "0.000",
        "cancelReason": null,
        "shopConnectionId": null,
        "draftReason": null,
        "confirmedAt": "2026-11-28T06:52:45.235Z",
        "fulfilledAt": null,
        "canceledAt": null,
        "createdAt": "2026-11-28T06:52:45.121Z",
        "updatedAt": "2026-11-28T06:52:45.331Z",
        "lines": [
          {
            "id": "sol_01m8getzpcf34aw727jzm40s8z",
            "lineNumber": 1,
            "productId": null,
            "blendId": null,
            "roastLevel": null,
            "quantityUnits": null,
            "roastedLotId": null,
            "roastedLotCode": null,
            "greenLotId": "gl_01m8getwmr2h6jk034rzjcmext",
            "greenLotCode": "L-2611-1",
            "profileId": null,
            "quantityKg": "12.000",
            "unitPrice": "20.0000",
            "currency": "EUR",
            "lineTotal": "240.0000",
            "allocatedKg": "12.000",
            "fulfilledKg": "0.000",
            "unallocatedKg": "0.000",
            "allocations": [
              {
                "id": "alc_01m8getzy0gbawfxjc4mnvfhw7",
                "roastedLotId": "rl_01m8getxr43drhsqpw6f3yg8gh",
                "lotCode": "R-B-2611-1",
                "quantityKg": "10.000",
                "strategy": "fifo",
                "bestBefore": "2027-02-16",
                "state": "active",
                "fulfillmentId": null,
                "createdAt": "2026-11-28T06:52:45.331Z"
              },
              {
                "id": "alc_01m8getzy02mb7b306cpgc11vg",
                "roastedLotId": "rl_01m8getyd127fn6adg528wpt9j",
                "lotCode": "R-B-2611-2",
                "quantityKg": "2.000",
                "strategy": "fifo",
                "bestBefore": "2026-12-13",
                "state": "active",
                "fulfillmentId": null,
                "createdAt": "2026-11-28T06:52:45.331Z"
              }
            ],
            "margin": {
              "currency": null,
              "listPrice": null,
              "coffeeCost": null,
              "materialsCost": null,
              "unitCost": null,
              "margin": null,
              "marginPct": null,
              "missing": "no_product",
              "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
            }
          }
        ]
      },
      "complete": true,
      "strategy": "fifo",
      "claims": [
        {
          "id": "alc_01m8getzy0gbawfxjc4mnvfhw7",
          "orderLineId": "sol_01m8getzpcf34aw727jzm40s8z",
          "roastedLotId": "rl_01m8getxr43drhsqpw6f3yg8gh",
          "quantityKg": "10.000",
          "lotCode": "R-B-2611-1",
          "bestBefore": "2027-02-16"
        },
        {
          "id": "alc_01m8getzy02mb7b306cpgc11vg",
          "orderLineId": "sol_01m8getzpcf34aw727jzm40s8z",
          "roastedLotId": "rl_01m8getyd127fn6adg528wpt9j",
          "quantityKg": "2.000",
          "lotCode": "R-B-2611-2",
          "bestBefore": "2026-12-13"
        }
      ],
      "shortfalls": []
    }
  },
  'orders.cancelOrder': {
    "input": {
      "id": "so_01m8gevpn4fr4hdyfh1h3d44at",
      "reason": "customer changed their mind"
    },
    "output": {
      "order": {
        "id": "so_01m8gevpn4fr4hdyfh1h3d44at",
        "orderNumber": "SO-2611-17",
        "customerId": "cus_01m8gevpm57rg3nwmvdenwn1sn",
        "customer": {
          "id": "cus_01m8gevpm57rg3nwmvdenwn1sn",
          "code": "C-2611-16",
          "name": "Café Nord"
        },
        "channel": "direct",
        "externalOrderId": null,
        "currency": "EUR",
        "requestedShipAt": null,
        "state": "canceled",
        "lineCount": 1,
        "totalKg": "1.000",
        "totalAmount": "10.0000",
        "allocatedKg": "0.000",
        "fulfilledKg": "0.000",
        "cancelReason": "customer changed their mind",
        "shopConnectionId": null,
        "draftReason": null,
        "confirmedAt": "2026-11-28T06:53:08.949Z",
        "fulfilledAt": null,
        "canceledAt": "2026-11-28T06:53:09.163Z",
        "createdAt": "2026-11-28T06:53:08.638Z",
        "updatedAt": "2026-11-28T06:53:09.163Z",
        "lines": [
          {
            "id": "sol_01m8gevpn56tb53bxa66h7kpr5",
            "lineNumber": 1,
            "productId": null,
            "blendId": null,
            "roastLevel": null,
            "quantityUnits": null,
            "roastedLotId": null,
            "roastedLotCode": null,
            "greenLotId": "gl_01m8gevpfpxs5s6590af98erjp",
            "greenLotCode": "L-2611-8",
            "profileId": null,
            "quantityKg": "1.000",
            "unitPrice": "10.0000",
            "currency": "EUR",
            "lineTotal": "10.0000",
            "allocatedKg": "0.000",
            "fulfilledKg": "0.000",
            "unallocatedKg": "1.000",
            "allocations": [],
            "margin": {
              "currency": null,
              "listPrice": null,
              "coffeeCost": null,
              "materialsCost": null,
              "unitCost": null,
              "margin": null,
              "marginPct": null,
              "missing": "no_product",
              "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
            }
          }
        ]
      },
      "released": []
    }
  },
  'orders.confirmOrder': {
    "input": {
      "id": "so_01m8getyvd841rv1fss9pqpm16"
    },
    "output": {
      "id": "so_01m8getyvd841rv1fss9pqpm16",
      "orderNumber": "SO-2611-4",
      "customerId": "cus_01m8getyqf452zvqn5f5329236",
      "customer": {
        "id": "cus_01m8getyqf452zvqn5f5329236",
        "code": "C-2611-3",
        "name": "Café Nord"
      },
      "channel": "direct",
      "externalOrderId": null,
      "currency": "EUR",
      "requestedShipAt": null,
      "state": "confirmed",
      "lineCount": 1,
      "totalKg": "12.000",
      "totalAmount": "240.0000",
      "allocatedKg": "0.000",
      "fulfilledKg": "0.000",
      "cancelReason": null,
      "shopConnectionId": null,
      "draftReason": null,
      "confirmedAt": "2026-11-28T06:52:44.523Z",
      "fulfilledAt": null,
      "canceledAt": null,
      "createdAt": "2026-11-28T06:52:44.258Z",
      "updatedAt": "2026-11-28T06:52:44.523Z",
      "lines": [
        {
          "id": "sol_01m8getyw4r866rm59c7npqa80",
          "lineNumber": 1,
          "productId": null,
          "blendId": null,
          "roastLevel": null,
          "quantityUnits": null,
          "roastedLotId": null,
          "roastedLotCode": null,
          "greenLotId": "gl_01m8getwmr2h6jk034rzjcmext",
          "greenLotCode": "L-2611-1",
          "profileId": null,
          "quantityKg": "12.000",
          "unitPrice": "20.0000",
          "currency": "EUR",
          "lineTotal": "240.0000",
          "allocatedKg": "0.000",
          "fulfilledKg": "0.000",
          "unallocatedKg": "12.000",
          "allocations": [],
          "margin": {
            "currency": null,
            "listPrice": null,
            "coffeeCost": null,
            "materialsCost": null,
            "unitCost": null,
            "margin": null,
            "marginPct": null,
            "missing": "no_product",
            "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
          }
        }
      ]
    }
  },
  'orders.createCustomer': {
    "input": {
      "name": "Café Nord",
      "code": "CAFE-NORD",
      "customerType": "cafe",
      "currency": "EUR",
      "paymentTermsDays": 30,
      "contactEmail": "buying@cafenord.example",
      "shippingAddress": {
        "recipient": "Bar",
        "line1": "Hafenstraße 1",
        "city": "Hamburg",
        "postalCode": "20457",
        "country": "DE"
      }
    },
    "output": {
      "id": "cus_01m8gevd0f4c0hs82403jtf0tv",
      "code": "CAFE-NORD",
      "name": "Café Nord",
      "customerType": "cafe",
      "currency": "EUR",
      "paymentTermsDays": 30,
      "contactEmail": "buying@cafenord.example",
      "shippingAddress": {
        "city": "Hamburg",
        "line1": "Hafenstraße 1",
        "country": "DE",
        "recipient": "Bar",
        "postalCode": "20457"
      },
      "createdAt": "2026-11-28T06:52:58.765Z",
      "updatedAt": "2026-11-28T06:52:58.765Z"
    }
  },
  'orders.createOrder': {
    "input": {
      "orderNumber": "SO-1",
      "customerId": "cus_01m8gevewkg43f8h0e8tr0y5zd",
      "channel": "webstore",
      "requestedShipAt": "2030-03-01",
      "lines": [
        {
          "roastedLotId": "rl_01m8gevgty5ce9yx16bnftswka",
          "quantityKg": 1.5,
          "unitPrice": "24.9"
        },
        {
          "greenLotId": "gl_01m8gevf0c7qxnejzyd0kscpbr",
          "profileId": "prf_01m8gevfemdscrjmqtxafkkhfc",
          "productId": "prd_01m8gevfkzp0ec85wntbw2c7zt",
          "quantityKg": "0.333",
          "unitPrice": "19.99",
          "currency": "CHF"
        }
      ]
    },
    "output": {
      "id": "so_01m8gevhcfzmx93cb0qe2cd4cz",
      "orderNumber": "SO-1",
      "customerId": "cus_01m8gevewkg43f8h0e8tr0y5zd",
      "customer": {
        "id": "cus_01m8gevewkg43f8h0e8tr0y5zd",
        "code": "C-2611-4",
        "name": "Café Nord"
      },
      "channel": "webstore",
      "externalOrderId": null,
      "currency": "CHF",
      "requestedShipAt": "2030-03-01T00:00:00.000Z",
      "state": "draft",
      "lineCount": 2,
      "totalKg": "1.833",
      "totalAmount": "44.0067",
      "allocatedKg": "0.000",
      "fulfilledKg": "0.000",
      "cancelReason": null,
      "shopConnectionId": null,
      "draftReason": null,
      "confirmedAt": null,
      "fulfilledAt": null,
      "canceledAt": null,
      "createdAt": "2026-11-28T06:53:03.207Z",
      "updatedAt": "2026-11-28T06:53:03.207Z",
      "lines": [
        {
          "id": "sol_01m8gevhd6kr106bstgha5mfat",
          "lineNumber": 1,
          "productId": null,
          "blendId": null,
          "roastLevel": null,
          "quantityUnits": null,
          "roastedLotId": "rl_01m8gevgty5ce9yx16bnftswka",
          "roastedLotCode": "R-B-2611-6",
          "greenLotId": null,
          "greenLotCode": null,
          "profileId": null,
          "quantityKg": "1.500",
          "unitPrice": "24.9000",
          "currency": "CHF",
          "lineTotal": "37.3500",
          "allocatedKg": "0.000",
          "fulfilledKg": "0.000",
          "unallocatedKg": "1.500",
          "allocations": [],
          "margin": {
            "currency": null,
            "listPrice": null,
            "coffeeCost": null,
            "materialsCost": null,
            "unitCost": null,
            "margin": null,
            "marginPct": null,
            "missing": "no_product",
            "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
          }
        },
        {
          "id": "sol_01m8gevhd6p5rcszmad3dt28px",
          "lineNumber": 2,
          "productId": "prd_01m8gevfkzp0ec85wntbw2c7zt",
          "blendId": null,
          "roastLevel": null,
          "quantityUnits": null,
          "roastedLotId": null,
          "roastedLotCode": null,
          "greenLotId": "gl_01m8gevf0c7qxnejzyd0kscpbr",
          "greenLotCode": "L-2611-1",
          "profileId": "prf_01m8gevfemdscrjmqtxafkkhfc",
          "quantityKg": "0.333",
          "unitPrice": "19.9900",
          "currency": "CHF",
          "lineTotal": "6.6567",
          "allocatedKg": "0.000",
          "fulfilledKg": "0.000",
          "unallocatedKg": "0.333",
          "allocations": [],
          "margin": {
            "currency": null,
            "listPrice": null,
            "coffeeCost": null,
            "materialsCost": null,
            "unitCost": null,
            "margin": null,
            "marginPct": null,
            "missing": "no_list_price",
            "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
          }
        }
      ]
    }
  },
  'orders.fulfillOrder': {
    "input": {
      "id": "so_01m8gev6dsa177vcjmj0vwz12y"
    },
    "output": {
      "order": {
        "id": "so_01m8gev6dsa177vcjmj0vwz12y",
        "orderNumber": "SO-2611-34",
        "customerId": "cus_01m8gev69emswrp0rneyqknhxc",
        "customer": {
          "id": "cus_01m8gev69emswrp0rneyqknhxc",
          "code": "C-2611-33",
          "name": "Café Nord"
        },
        "channel": "direct",
        "externalOrderId": null,
        "currency": "EUR",
        "requestedShipAt": null,
        "state": "fulfilled",
        "lineCount": 2,
        "totalKg": "13.500",
        "totalAmount": "270.0000",
        "allocatedKg": "0.000",
        "fulfilledKg": "13.500",
        "cancelReason": null,
        "shopConnectionId": null,
        "draftReason": null,
        "confirmedAt": "2026-11-28T06:52:52.160Z",
        "fulfilledAt": "2026-11-28T06:52:52.424Z",
        "canceledAt": null,
        "createdAt": "2026-11-28T06:52:51.998Z",
        "updatedAt": "2026-11-28T06:52:52.424Z",
        "lines": [
          {
            "id": "sol_01m8gev6dtmsy8692wacx4jrfn",
            "lineNumber": 1,
            "productId": null,
            "blendId": null,
            "roastLevel": null,
            "quantityUnits": null,
            "roastedLotId": null,
            "roastedLotCode": null,
            "greenLotId": "gl_01m8gev5rtx1yqt5w85p5e950g",
            "greenLotCode": "L-2611-8",
            "profileId": null,
            "quantityKg": "12.000",
            "unitPrice": "20.0000",
            "currency": "EUR",
            "lineTotal": "240.0000",
            "allocatedKg": "0.000",
            "fulfilledKg": "12.000",
            "unallocatedKg": "0.000",
            "allocations": [
              {
                "id": "alc_01m8gev6pjbxck2xpw7nz921n5",
                "roastedLotId": "rl_01m8gev63t5dfnqmatvbxmvqaq",
                "lotCode": "R-B-2611-32",
                "quantityKg": "10.000",
                "strategy": "fefo",
                "bestBefore": "2026-12-13",
                "state": "fulfilled",
                "fulfillmentId": "ful_01m8gev6v7ew992fmt083mj27z",
                "createdAt": "2026-11-28T06:52:52.284Z"
              },
              {
                "id": "alc_01m8gev6pjvht09amcc8csn7fw",
                "roastedLotId": "rl_01m8gev611q6f2grnrmvesans3",
                "lotCode": "R-B-2611-31",
                "quantityKg": "2.000",
                "strategy": "fefo",
                "bestBefore": "2027-02-16",
                "state": "fulfilled",
                "fulfillmentId": "ful_01m8gev6v7ew992fmt083mj27z",
                "createdAt": "2026-11-28T06:52:52.284Z"
              }
            ],
            "margin": {
              "currency": null,
              "listPrice": null,
              "coffeeCost": null,
              "materialsCost": null,
              "unitCost": null,
              "margin": null,
              "marginPct": null,
              "missing": "no_product",
              "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
            }
          },
          {
            "id": "sol_01m8gev6dtyh6mzxst4vxf7vk3",
            "lineNumber": 2,
            "productId": null,
            "blendId": null,
            "roastLevel": null,
            "quantityUnits": null,
            "roastedLotId": "rl_01m8gev611q6f2grnrmvesans3",
            "roastedLotCode": "R-B-2611-31",
            "greenLotId": null,
            "greenLotCode": null,
            "profileId": null,
            "quantityKg": "1.500",
            "unitPrice": "20.0000",
            "currency": "EUR",
            "lineTotal": "30.0000",
            "allocatedKg": "0.000",
            "fulfilledKg": "1.500",
            "unallocatedKg": "0.000",
            "allocations": [
              {
                "id": "alc_01m8gev6pjvy1qnr7t8vd45wqg",
                "roastedLotId": "rl_01m8gev611q6f2grnrmvesans3",
                "lotCode": "R-B-2611-31",
                "quantityKg": "1.500",
                "strategy": "fefo",
                "bestBefore": "2027-02-16",
                "state": "fulfilled",
                "fulfillmentId": "ful_01m8gev6v7ew992fmt083mj27z",
                "createdAt": "2026-11-28T06:52:52.284Z"
              }
            ],
            "margin": {
              "currency": null,
              "listPrice": null,
              "coffeeCost": null,
              "materialsCost": null,
              "unitCost": null,
              "margin": null,
              "marginPct": null,
              "missing": "no_product",
              "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
            }
          }
        ]
      },
      "fulfillment": {
        "id": "ful_01m8gev6v7ew992fmt083mj27z",
        "createdAt": "2026-11-28T06:52:52.424Z"
      },
      "transactions": [
        {
          "id": "rlt_01m8gev6vvt8gpy1b572n5gf4j",
          "roastedLotId": "rl_01m8gev611q6f2grnrmvesans3",
          "seq": 2,
          "kind": "fulfilment",
          "deltaKg": "-2.000",
          "credentialId": "key_01m8gev5r8yqd1ctg5ys0zyhqp",
          "comment": "order SO-2611-34 line 1",
          "createdAt": "2026-11-28T06:52:52.424Z"
        },
        {
          "id": "rlt_01m8gev6wdghqzsnxvxwpwkgtn",
          "roastedLotId": "rl_01m8gev63t5dfnqmatvbxmvqaq",
          "seq": 2,
          "kind": "fulfilment",
          "deltaKg": "-10.000",
          "credentialId": "key_01m8gev5r8yqd1ctg5ys0zyhqp",
          "comment": "order SO-2611-34 line 1",
          "createdAt": "2026-11-28T06:52:52.424Z"
        },
        {
          "id": "rlt_01m8gev6weq0zv89tvq6820cff",
          "roastedLotId": "rl_01m8gev611q6f2grnrmvesans3",
          "seq": 3,
          "kind": "fulfilment",
          "deltaKg": "-1.500",
          "credentialId": "key_01m8gev5r8yqd1ctg5ys0zyhqp",
          "comment": "order SO-2611-34 line 2",
          "createdAt": "2026-11-28T06:52:52.424Z"
        }
      ],
      "lineage": [
        {
          "id": "lin_01m8gev6wfqdk794ehat25tadn",
          "fromKind": "roasted_lot",
          "fromId": "rl_01m8gev611q6f2grnrmvesans3",
          "toKind": "order_line",
          "toId": "sol_01m8gev6dtmsy8692wacx4jrfn",
          "weightKg": "2.000",
          "groupId": "ful_01m8gev6v7ew992fmt083mj27z",
          "createdAt": "2026-11-28T06:52:52.424Z"
        },
        {
          "id": "lin_01m8gev6wfssh804m114j5dp00",
          "fromKind": "roasted_lot",
          "fromId": "rl_01m8gev63t5dfnqmatvbxmvqaq",
          "toKind": "order_line",
          "toId": "sol_01m8gev6dtmsy8692wacx4jrfn",
          "weightKg": "10.000",
          "groupId": "ful_01m8gev6v7ew992fmt083mj27z",
          "createdAt": "2026-11-28T06:52:52.424Z"
        },
        {
          "id": "lin_01m8gev6wfs0y40snkw5ma4wvk",
          "fromKind": "roasted_lot",
          "fromId": "rl_01m8gev611q6f2grnrmvesans3",
          "toKind": "order_line",
          "toId": "sol_01m8gev6dtyh6mzxst4vxf7vk3",
          "weightKg": "1.500",
          "groupId": "ful_01m8gev6v7ew992fmt083mj27z",
          "createdAt": "2026-11-28T06:52:52.424Z"
        }
      ]
    }
  },
  'orders.getOrder': {
    "input": {
      "id": "so_01m8gevhcfzmx93cb0qe2cd4cz"
    },
    "output": {
      "id": "so_01m8gevhcfzmx93cb0qe2cd4cz",
      "orderNumber": "SO-1",
      "customerId": "cus_01m8gevewkg43f8h0e8tr0y5zd",
      "customer": {
        "id": "cus_01m8gevewkg43f8h0e8tr0y5zd",
        "code": "C-2611-4",
        "name": "Café Nord"
      },
      "channel": "webstore",
      "externalOrderId": null,
      "currency": "CHF",
      "requestedShipAt": "2030-03-01T00:00:00.000Z",
      "state": "draft",
      "lineCount": 2,
      "totalKg": "1.833",
      "totalAmount": "44.0067",
      "allocatedKg": "0.000",
      "fulfilledKg": "0.000",
      "cancelReason": null,
      "shopConnectionId": null,
      "draftReason": null,
      "confirmedAt": null,
      "fulfilledAt": null,
      "canceledAt": null,
      "createdAt": "2026-11-28T06:53:03.207Z",
      "updatedAt": "2026-11-28T06:53:03.207Z",
      "lines": [
        {
          "id": "sol_01m8gevhd6kr106bstgha5mfat",
          "lineNumber": 1,
          "productId": null,
          "blendId": null,
          "roastLevel": null,
          "quantityUnits": null,
          "roastedLotId": "rl_01m8gevgty5ce9yx16bnftswka",
          "roastedLotCode": "R-B-2611-6",
          "greenLotId": null,
          "greenLotCode": null,
          "profileId": null,
          "quantityKg": "1.500",
          "unitPrice": "24.9000",
          "currency": "CHF",
          "lineTotal": "37.3500",
          "allocatedKg": "0.000",
          "fulfilledKg": "0.000",
          "unallocatedKg": "1.500",
          "allocations": [],
          "margin": {
            "currency": null,
            "listPrice": null,
            "coffeeCost": null,
            "materialsCost": null,
            "unitCost": null,
            "margin": null,
            "marginPct": null,
            "missing": "no_product",
            "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
          }
        },
        {
          "id": "sol_01m8gevhd6p5rcszmad3dt28px",
          "lineNumber": 2,
          "productId": "prd_01m8gevfkzp0ec85wntbw2c7zt",
          "blendId": null,
          "roastLevel": null,
          "quantityUnits": null,
          "roastedLotId": null,
          "roastedLotCode": null,
          "greenLotId": "gl_01m8gevf0c7qxnejzyd0kscpbr",
          "greenLotCode": "L-2611-1",
          "profileId": "prf_01m8gevfemdscrjmqtxafkkhfc",
          "quantityKg": "0.333",
          "unitPrice": "19.9900",
          "currency": "CHF",
          "lineTotal": "6.6567",
          "allocatedKg": "0.000",
          "fulfilledKg": "0.000",
          "unallocatedKg": "0.333",
          "allocations": [],
          "margin": {
            "currency": null,
            "listPrice": null,
            "coffeeCost": null,
            "materialsCost": null,
            "unitCost": null,
            "margin": null,
            "marginPct": null,
            "missing": "no_list_price",
            "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
          }
        }
      ]
    }
  },
  'orders.listCustomers': {
    "input": {},
    "output": {
      "items": [
        {
          "id": "cus_01m8gevea3wmkkqy93jp50fkv0",
          "code": "NORD",
          "name": "Café Nord",
          "customerType": "cafe",
          "currency": "EUR",
          "paymentTermsDays": null,
          "contactEmail": null,
          "shippingAddress": null,
          "createdAt": "2026-11-28T06:53:00.086Z",
          "updatedAt": "2026-11-28T06:53:00.086Z"
        },
        {
          "id": "cus_01m8geved8kx4vgzvybeqvwy0v",
          "code": "SUED",
          "name": "Rösterei Süd",
          "customerType": "wholesale",
          "currency": "EUR",
          "paymentTermsDays": null,
          "contactEmail": "einkauf@sued.example",
          "shippingAddress": null,
          "createdAt": "2026-11-28T06:53:00.177Z",
          "updatedAt": "2026-11-28T06:53:00.177Z"
        },
        {
          "id": "cus_01m8gevef93jbg1mtm44t49zmb",
          "code": "WEB",
          "name": "Webshop",
          "customerType": "retail",
          "currency": "EUR",
          "paymentTermsDays": null,
          "contactEmail": null,
          "shippingAddress": null,
          "createdAt": "2026-11-28T06:53:00.264Z",
          "updatedAt": "2026-11-28T06:53:00.264Z"
        }
      ],
      "nextCursor": null
    }
  },
  'orders.listOrders': {
    "input": {
      "filter": {}
    },
    "output": {
      "items": [
        {
          "id": "so_01m8gevn3vdt83c1dx79spby1w",
          "orderNumber": "C-3",
          "customerId": "cus_01m8gevmxrndc4jtydzc39cs4q",
          "customer": {
            "id": "cus_01m8gevmxrndc4jtydzc39cs4q",
            "code": "C-2611-11",
            "name": "Café Nord"
          },
          "channel": "webstore",
          "externalOrderId": null,
          "currency": "EUR",
          "requestedShipAt": null,
          "state": "draft",
          "lineCount": 1,
          "totalKg": "1.000",
          "totalAmount": "10.0000",
          "allocatedKg": "0.000",
          "fulfilledKg": "0.000",
          "cancelReason": null,
          "shopConnectionId": null,
          "draftReason": null,
          "confirmedAt": null,
          "fulfilledAt": null,
          "canceledAt": null,
          "createdAt": "2026-11-28T06:53:07.042Z",
          "updatedAt": "2026-11-28T06:53:07.042Z"
        },
        {
          "id": "so_01m8gevn0sdk3cf3zbrapyv961",
          "orderNumber": "B-2",
          "customerId": "cus_01m8gevmy8w0d2j7tmzm7j37pd",
          "customer": {
            "id": "cus_01m8gevmy8w0d2j7tmzm7j37pd",
            "code": "C-2611-12",
            "name": "Rösterei Süd"
          },
          "channel": "webstore",
          "externalOrderId": "SHOP-10482",
          "currency": "EUR",
          "requestedShipAt": "2030-01-11T23:30:00.000Z",
          "state": "confirmed",
          "lineCount": 1,
          "totalKg": "1.000",
          "totalAmount": "10.0000",
          "allocatedKg": "0.000",
          "fulfilledKg": "0.000",
          "cancelReason": null,
          "shopConnectionId": null,
          "draftReason": null,
          "confirmedAt": "2026-11-28T06:53:07.160Z",
          "fulfilledAt": null,
          "canceledAt": null,
          "createdAt": "2026-11-28T06:53:06.958Z",
          "updatedAt": "2026-11-28T06:53:07.160Z"
        },
        {
          "id": "so_01m8gevmz3bq86m2h8gfcjmgx6",
          "orderNumber": "A-1",
          "customerId": "cus_01m8gevmxrndc4jtydzc39cs4q",
          "customer": {
            "id": "cus_01m8gevmxrndc4jtydzc39cs4q",
            "code": "C-2611-11",
            "name": "Café Nord"
          },
          "channel": "direct",
          "externalOrderId": null,
          "currency": "EUR",
          "requestedShipAt": "2030-01-10T00:00:00.000Z",
          "state": "draft",
          "lineCount": 1,
          "totalKg": "1.000",
          "totalAmount": "10.0000",
          "allocatedKg": "0.000",
          "fulfilledKg": "0.000",
          "cancelReason": null,
          "shopConnectionId": null,
          "draftReason": null,
          "confirmedAt": null,
          "fulfilledAt": null,
          "canceledAt": null,
          "createdAt": "2026-11-28T06:53:06.914Z",
          "updatedAt": "2026-11-28T06:53:06.914Z"
        }
      ],
      "nextCursor": null
    }
  },
  'orders.releaseOrderAllocation': {
    "input": {
      "orderLineId": "sol_01m8gev433gqp8wj4nchmwq77r"
    },
    "output": {
      "order": {
        "id": "so_01m8gev432jsk0rg3y236hcxpe",
        "orderNumber": "SO-2611-23",
        "customerId": "cus_01m8gev42rtb4ceatfkvmmbdw4",
        "customer": {
          "id": "cus_01m8gev42rtb4ceatfkvmmbdw4",
          "code": "C-2611-22",
          "name": "Café Nord"
        },
        "channel": "direct",
        "externalOrderId": null,
        "currency": "EUR",
        "requestedShipAt": null,
        "state": "partially_allocated",
        "lineCount": 2,
        "totalKg": "10.000",
        "totalAmount": "200.0000",
        "allocatedKg": "4.000",
        "fulfilledKg": "0.000",
        "cancelReason": null,
        "shopConnectionId": null,
        "draftReason": null,
        "confirmedAt": "2026-11-28T06:52:49.651Z",
        "fulfilledAt": null,
        "canceledAt": null,
        "createdAt": "2026-11-28T06:52:49.630Z",
        "updatedAt": "2026-11-28T06:52:50.088Z",
        "lines": [
          {
            "id": "sol_01m8gev433dn81k8a3k6m43cjd",
            "lineNumber": 1,
            "productId": null,
            "blendId": null,
            "roastLevel": null,
            "quantityUnits": null,
            "roastedLotId": "rl_01m8gev41wcrbv5926m93nezm8",
            "roastedLotCode": "R-B-2611-21",
            "greenLotId": null,
            "greenLotCode": null,
            "profileId": null,
            "quantityKg": "4.000",
            "unitPrice": "20.0000",
            "currency": "EUR",
            "lineTotal": "80.0000",
            "allocatedKg": "4.000",
            "fulfilledKg": "0.000",
            "unallocatedKg": "0.000",
            "allocations": [
              {
                "id": "alc_01m8gev46e1camar503z66p7mj",
                "roastedLotId": "rl_01m8gev41wcrbv5926m93nezm8",
                "lotCode": "R-B-2611-21",
                "quantityKg": "4.000",
                "strategy": "fefo",
                "bestBefore": "2027-02-26",
                "state": "active",
                "fulfillmentId": null,
                "createdAt": "2026-11-28T06:52:49.708Z"
              }
            ],
            "margin": {
              "currency": null,
              "listPrice": null,
              "coffeeCost": null,
              "materialsCost": null,
              "unitCost": null,
              "margin": null,
              "marginPct": null,
              "missing": "no_product",
              "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
            }
          },
          {
            "id": "sol_01m8gev433gqp8wj4nchmwq77r",
            "lineNumber": 2,
            "productId": null,
            "blendId": null,
            "roastLevel": null,
            "quantityUnits": null,
            "roastedLotId": "rl_01m8gev41wcrbv5926m93nezm8",
            "roastedLotCode": "R-B-2611-21",
            "greenLotId": null,
            "greenLotCode": null,
            "profileId": null,
            "quantityKg": "6.000",
            "unitPrice": "20.0000",
            "currency": "EUR",
            "lineTotal": "120.0000",
            "allocatedKg": "0.000",
            "fulfilledKg": "0.000",
            "unallocatedKg": "6.000",
            "allocations": [],
            "margin": {
              "currency": null,
              "listPrice": null,
              "coffeeCost": null,
              "materialsCost": null,
              "unitCost": null,
              "margin": null,
              "marginPct": null,
              "missing": "no_product",
              "rule": "per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − (coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up"
            }
          }
        ]
      },
      "released": [
        {
          "id": "alc_01m8gev46fpq62z992yjgsmxbr",
          "orderLineId": "sol_01m8gev433gqp8wj4nchmwq77r",
          "roastedLotId": "rl_01m8gev41wcrbv5926m93nezm8",
          "quantityKg": "6.000"
        }
      ],
      "releasedKg": "6.000"
    }
  },
  'orders.createShopConnection': {
    "input": {
      "platform": "shopify",
      "name": "Online shop",
      "code": "WEB",
      "customerId": "cus_01m8getzjp4wp6d414ysz5zhe0",
      "secret": "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"
    },
    "output": {
      "id": "shp_01m8gem1f3dh886g1h0tkgz5yt",
      "platform": "shopify",
      "name": "Online shop",
      "code": "WEB",
      "customerId": "cus_01m8getzjp4wp6d414ysz5zhe0",
      "webhookPath": "/hooks/v1/orgs/org_01m8gem0w9k2v3c4x5z6b7n8q1/shops/shp_01m8gem1f3dh886g1h0tkgz5yt/orders",
      "secretRotatedAt": null,
      "createdAt": "2026-11-28T09:50:12.114Z",
      "updatedAt": "2026-11-28T09:50:12.114Z"
    }
  },
  'orders.listShopConnections': {
    "input": {},
    "output": {
      "items": [
        {
      "id": "shp_01m8gem1f3dh886g1h0tkgz5yt",
      "platform": "shopify",
      "name": "Online shop",
      "code": "WEB",
      "customerId": "cus_01m8getzjp4wp6d414ysz5zhe0",
      "webhookPath": "/hooks/v1/orgs/org_01m8gem0w9k2v3c4x5z6b7n8q1/shops/shp_01m8gem1f3dh886g1h0tkgz5yt/orders",
      "secretRotatedAt": null,
      "createdAt": "2026-11-28T09:50:12.114Z",
      "updatedAt": "2026-11-28T09:50:12.114Z"
    }
      ],
      "nextCursor": null
    }
  },
  'orders.rotateShopSecret': {
    "input": {
      "id": "shp_01m8gem1f3dh886g1h0tkgz5yt",
      "secret": "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"
    },
    "output": {
      "id": "shp_01m8gem1f3dh886g1h0tkgz5yt",
      "platform": "shopify",
      "name": "Online shop",
      "code": "WEB",
      "customerId": "cus_01m8getzjp4wp6d414ysz5zhe0",
      "webhookPath": "/hooks/v1/orgs/org_01m8gem0w9k2v3c4x5z6b7n8q1/shops/shp_01m8gem1f3dh886g1h0tkgz5yt/orders",
      "secretRotatedAt": "2026-11-28T10:02:40.508Z",
      "createdAt": "2026-11-28T09:50:12.114Z",
      "updatedAt": "2026-11-28T10:02:40.508Z"
    }
  },
  'orders.deleteShopConnection': {
    "input": {
      "id": "shp_01m8gem1f3dh886g1h0tkgz5yt"
    },
    "output": {
      "id": "shp_01m8gem1f3dh886g1h0tkgz5yt",
      "platform": "shopify",
      "name": "Online shop",
      "code": "WEB",
      "customerId": "cus_01m8getzjp4wp6d414ysz5zhe0",
      "webhookPath": "/hooks/v1/orgs/org_01m8gem0w9k2v3c4x5z6b7n8q1/shops/shp_01m8gem1f3dh886g1h0tkgz5yt/orders",
      "secretRotatedAt": null,
      "createdAt": "2026-11-28T09:50:12.114Z",
      "updatedAt": "2026-11-28T10:05:03.771Z"
    }
  },
};
